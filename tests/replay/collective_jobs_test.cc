#include "replay/collective_jobs.h"

#include <doctest/doctest.h>

#include <random>
#include <set>

#include "support/replay_plans.h"

namespace dtplan::replay {
namespace {

using collective::Collective;
using core::DType;

TEST_CASE("collective jobs: a flattened all_reduce (worked example)") {
  // P(sum),R,P(sum) -> R,R,R on (A,B,C) = (2,2,2) with A_C: one all_reduce on the flattened mesh.
  redist::RedistPlan plan =
      testing::redist_plan({2, 2, 2}, {"A", "B", "C"}, {{"A", "C"}}, {16, 16, 16}, DType::kF32,
                           "P(sum),R,P(sum)", "R,R,R");
  const ReplaySource source = from_redist_plan(plan);
  CHECK(source.redistributions[0].label == "redistribute P(sum),R,P(sum) -> R,R,R");
  auto jobs = collect_jobs(source).value();
  REQUIRE(jobs.size() == 1);
  const CollectiveJob& j = jobs[0];
  CHECK(j.collective == Collective::kAllReduce);
  CHECK(j.op == sim::ReduceOp::kSum);
  CHECK(j.mesh_dims == std::vector<std::int32_t>{0, 2});
  CHECK(j.flattened_mesh == "A_C");
  CHECK(j.group_size == 4);
  CHECK(j.groups == std::vector<sim::Group>{{0, 1, 4, 5}, {2, 3, 6, 7}});
  CHECK(j.bytes == 16384);
  CHECK(j.nccl_bytes == 16384);
  CHECK(j.count == 1);
  CHECK(j.predicted_us == plan.steps[0].cost_us);
  CHECK(j.topology == cost::GroupTopology{4, 1, 4, 4});
  CHECK(job_input_shape(j) == sim::Shape{4096});
  CHECK(dims_label(source.mesh, j.mesh_dims) == "A,C");
  CHECK(job_call(j) == sim::CollectiveCall{Collective::kAllReduce, j.groups, sim::ReduceOp::kSum});
}

TEST_CASE("collective jobs: all_gather and reduce_scatter sizes (worked example)") {
  // S(0),R -> R,R on (2,2): all_gather on dim 0 of an f32[8,4] shard of 16 elements per rank.
  auto ag = collect_jobs(from_redist_plan(testing::redist_plan({2, 2}, {"dp", "tp"}, {}, {8, 4},
                                                               DType::kF32, "S(0),R", "R,R")))
                .value();
  REQUIRE(ag.size() == 1);
  CHECK(ag[0].collective == Collective::kAllGather);
  CHECK(ag[0].groups == std::vector<sim::Group>{{0, 2}, {1, 3}});
  CHECK(ag[0].bytes == 64);
  CHECK(ag[0].nccl_bytes == 128);
  CHECK(job_input_shape(ag[0]) == sim::Shape{16});
  // R,P(sum) -> R,S(0): reduce_scatter on dim 1; the step's bytes are the output.
  auto rs = collect_jobs(from_redist_plan(testing::redist_plan({2, 2}, {"dp", "tp"}, {}, {8, 4},
                                                               DType::kBF16, "R,P(sum)", "R,S(0)")))
                .value();
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].collective == Collective::kReduceScatter);
  CHECK(rs[0].groups == std::vector<sim::Group>{{0, 1}, {2, 3}});
  CHECK(rs[0].bytes == 32);
  CHECK(rs[0].nccl_bytes == 64);
  CHECK(job_input_shape(rs[0]) == sim::Shape{32});
}

TEST_CASE("collective jobs: repeated steps merge and count (model-like source)") {
  redist::RedistPlan a =
      testing::redist_plan({2, 2}, {"dp", "tp"}, {}, {8, 4}, DType::kF32, "S(0),R", "R,R");
  redist::RedistPlan b =
      testing::redist_plan({2, 2}, {"dp", "tp"}, {}, {8, 4}, DType::kF32, "R,P(sum)", "R,R");
  ReplaySource s = from_redist_plan(a);
  s.kind = PlanKind::kModel;
  s.redistributions.push_back({"second", b});
  s.redistributions.push_back({"third", a});
  auto jobs = collect_jobs(s).value();
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].collective == Collective::kAllGather);
  CHECK(jobs[0].count == 2);
  CHECK(jobs[1].collective == Collective::kAllReduce);
  CHECK(jobs[1].count == 1);
  CHECK(jobs[1].first_use == "second step 0");
}

TEST_CASE("collective jobs: properties over random plans") {
  std::mt19937_64 rng(4242);
  int planned = 0;
  for (int i = 0; i < 200; ++i) {
    auto maybe = testing::random_redist_plan(rng, 64);
    if (!maybe) continue;
    const redist::RedistPlan& plan = *maybe;
    ++planned;
    const ReplaySource source = from_redist_plan(plan);
    auto jobs = collect_jobs(source);
    REQUIRE_MESSAGE(jobs.ok(), (jobs.ok() ? std::string() : jobs.error().message));
    const std::int64_t world = mesh_world_size(source.mesh).value();
    std::int64_t counted = 0;
    for (const CollectiveJob& j : *jobs) {
      counted += j.count;
      // The groups partition the world into groups of group_size.
      std::set<std::int64_t> seen;
      for (const sim::Group& g : j.groups) {
        CHECK(static_cast<std::int64_t>(g.size()) == j.group_size);
        seen.insert(g.begin(), g.end());
      }
      CHECK(static_cast<std::int64_t>(seen.size()) == world);
      CHECK(sim::validate_call(job_call(j), world).ok());
      // S follows the collective's convention from the input shape.
      const std::int64_t input = job_input_shape(j)[0] * core::dtype_bytes(j.dtype);
      const std::int64_t rank_bytes =
          j.collective == Collective::kReduceScatter ? input / j.group_size : input;
      CHECK(j.nccl_bytes ==
            collective::nccl_size_from_rank_bytes(j.collective, rank_bytes, j.group_size, "")
                .value());
    }
    std::int64_t steps = 0;
    for (const redist::PlanStep& st : plan.steps) {
      if (redist::collective_of(st.transform.kind) && st.group_size > 1 && st.bytes > 0) ++steps;
    }
    CHECK(counted == steps);
  }
  CHECK(planned > 50);
}

TEST_CASE("collective jobs: errors name the step") {
  redist::RedistPlan plan =
      testing::redist_plan({2, 2}, {"dp", "tp"}, {}, {8, 4}, DType::kF32, "S(0),R", "R,R");
  plan.steps[0].bytes = 6;  // not whole f32 elements
  auto r = collect_jobs(from_redist_plan(plan));
  REQUIRE(!r.ok());
  CHECK(r.error().kind == core::ErrorKind::kBadInput);
  CHECK(r.error().message.find("step 0: bytes 6") != std::string::npos);
  plan.steps[0].bytes = 64;
  plan.steps[0].group_size = 4;
  r = collect_jobs(from_redist_plan(plan));
  REQUIRE(!r.ok());
  CHECK(r.error().message.find("group_size 4") != std::string::npos);
  CHECK(mesh_world_size({}).error().kind == core::ErrorKind::kBadInput);
}

}  // namespace
}  // namespace dtplan::replay
