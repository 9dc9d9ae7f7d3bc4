#include "plan/plan_summary.h"

#include <doctest/doctest.h>

#include "support/redist_support.h"

namespace dtplan::plan {

namespace {

redist::RedistPlan planned(redist::Planner& planner, const std::string& from,
                           const std::string& to) {
  const std::vector<std::int64_t> mesh = {2, 2};
  auto src = placement::TensorSpec::make(
      {8, 8}, core::DType::kF32, placement::parse_placement_list(from, "from").value(), mesh);
  auto dst = placement::TensorSpec::make({8, 8}, core::DType::kF32,
                                         placement::parse_placement_list(to, "to").value(), mesh);
  return *planner.plan(src.value(), dst.value(), {}).value();
}

}  // namespace

TEST_CASE("plan summary: costs split into compute, collectives and local steps") {
  auto planner = testing::make_planner(testing::mesh_context({2, 2}, {"dp", "tp"}),
                                       redist::CostModelKind::kNccl);
  Plan p;
  p.mesh = redist::describe_mesh(planner->mesh());
  p.ops.resize(3);
  p.ops[0].compute_us = 1.5;
  p.ops[1].compute_us = 2.25;
  p.ops[2].compute_us = 0;
  p.redistributions.push_back({1, 0, 0, planned(*planner, "S(0),S(0)", "R,R")});  // 2 gathers
  p.redistributions.push_back({2, 0, 1, planned(*planner, "R,R", "S(0),R")});     // a chunk
  p.redistributions.push_back({2, 1, 0, planned(*planner, "P(sum),R", "R,R")});   // all_reduce
  summarize(p);
  double comm = 0;
  double local = 0;
  for (const PlanRedistribution& r : p.redistributions) {
    for (const redist::PlanStep& s : r.plan.steps) {
      (redist::collective_of(s.transform.kind) ? comm : local) += s.cost_us;
    }
  }
  CHECK(p.cost.compute_us == 3.75);
  CHECK(p.cost.communication_us == comm);
  CHECK(p.cost.redistribution_us == local);
  CHECK(local > 0);
  CHECK(p.cost.total_us == 3.75 + comm + local);
  // Collectives by (kind, dims, flattened, group): two all_gathers (dims 1 then 0) and an
  // all_reduce, in key order.
  REQUIRE(p.collectives.size() == 3);
  CHECK(p.collectives[0].kind == collective::Collective::kAllGather);
  CHECK(p.collectives[0].mesh_dims == std::vector<std::int32_t>{0});
  CHECK(p.collectives[1].kind == collective::Collective::kAllGather);
  CHECK(p.collectives[1].mesh_dims == std::vector<std::int32_t>{1});
  CHECK(p.collectives[2].kind == collective::Collective::kAllReduce);
  std::int64_t count = 0;
  for (const CollectiveSummary& c : p.collectives) count += c.count;
  CHECK(count == 3);
  // Warnings: the unmerged gathers on dp,tp warn once, however often they occur.
  p.redistributions.push_back({2, 2, 0, planned(*planner, "S(0),S(0)", "R,R")});
  summarize(p);
  REQUIRE(p.warnings.size() == 1);
  CHECK(p.warnings[0].reason == redist::WarningReason::kNoFlattenedMesh);
  const redist::Warning extra{redist::WarningReason::kUnevenTensorShape, {0}, "x"};
  CHECK(warning_summary(p, std::vector<redist::Warning>{extra, extra}).size() == 2);
}

}  // namespace dtplan::plan
