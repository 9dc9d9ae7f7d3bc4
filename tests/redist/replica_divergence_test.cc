// divergence_warnings: reductions of equal inputs in groups with different node structures, on
// hand-built step lists; and the generic property over random plans of every planner, merged and
// not: --verify (the fake process group's NCCL orders) finds replicas that differ bitwise only
// where a divergent_replicas warning was given.

#include "redist/replica_divergence.h"

#include <doctest/doctest.h>

#include <random>

#include "placement/placement_text.h"
#include "redist/planner.h"
#include "sim/verify.h"
#include "support/placement_specs.h"
#include "support/profiles.h"
#include "support/redist_support.h"

namespace dtplan::redist {
namespace {

using testing::mesh_context;
using testing::state_of;
using testing::steps_of;

std::vector<Warning> warnings(const MeshContext& ctx, const std::string& src,
                              const std::string& steps, core::DType dtype = core::DType::kF32) {
  auto r = divergence_warnings(ctx, dtype, state_of(src), steps_of(steps));
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string() : r.error().message));
  return *r;
}

bool has(const std::string& text, const std::string& part) {
  INFO(text);
  return text.find(part) != std::string::npos;
}

TEST_CASE("divergence: separate all_reduces whose second groups straddle nodes differently") {
  // 7,1,6 on 8 GPUs per node: after all_reduce(B), the 7 groups of D (ranks 6b..6b+5) hold equal
  // values; group 0 lies on node 0, group 1 on nodes 0 and 1 (2 + 4 ranks).
  MeshContext ctx = mesh_context({7, 1, 6}, {"B", "C", "D"}, {{"B", "D"}});
  const std::vector<Warning> w =
      warnings(ctx, "P(sum),P(sum),P(sum)", "0:P(sum)->R 1:P(sum)->S(0) 2:P(sum)->R");
  REQUIRE(w.size() == 1);
  CHECK(w[0].reason == WarningReason::kDivergentReplicas);
  CHECK(w[0].mesh_dims == std::vector<std::int32_t>{2});
  for (const char* part :
       {"Replicas may differ bitwise", "all_reduce on mesh dim \"D\" (step 2)",
        "replicated over mesh dims [\"B\"]", "[0, 1, 2, 3, 4, 5] (6 ranks (1 node x 6))",
        "[6, 7, 8, 9, 10, 11]", "One reduction over mesh dims [\"B\", \"D\"]"}) {
    CHECK(has(w[0].message, part));
  }
  // One all_reduce over the flattened mesh: one group, nothing to warn.
  CHECK(warnings(ctx, "P(sum),P(sum),P(sum)", "0,2:P(sum)->R@B_D 1:P(sum)->S(0)").empty());
  // Exact reductions never warn: integer sums and max.
  CHECK(warnings(ctx, "P(sum),P(sum),P(sum)", "0:P(sum)->R 1:P(sum)->S(0) 2:P(sum)->R",
                 core::DType::kI32)
            .empty());
  CHECK(warnings(ctx, "P(max),P(max),P(max)", "0:P(max)->R 1:P(max)->S(0) 2:P(max)->R").empty());
  // Averages add in an order too.
  CHECK(warnings(ctx, "P(avg),P(avg),P(avg)", "0:P(avg)->R 1:P(avg)->S(0) 2:P(avg)->R").size() ==
        1);
}

TEST_CASE("divergence: groups with one node structure reduce alike") {
  // 2,2 on 8 GPUs per node (one node) or on 1 (a node per rank): the groups of each dim match.
  for (std::int64_t gpus : {8, 1}) {
    CAPTURE(gpus);
    MeshContext ctx = mesh_context({2, 2}, {"A", "B"}, {}, gpus);
    CHECK(warnings(ctx, "P(sum),P(sum)", "0:P(sum)->R 1:P(sum)->R").empty());
  }
}

TEST_CASE("divergence: one reduction of replicated inputs, and reductions of different kinds") {
  // R,P(sum) on 3,5: the groups of dim 1 are ranks 0-4 (one node) and 5-9 (3 + 2 ranks).
  const std::vector<Warning> one =
      warnings(mesh_context({3, 5}, {"A", "B"}), "R,P(sum)", "1:P(sum)->R");
  REQUIRE(one.size() == 1);
  CHECK(has(one[0].message, "replicated over mesh dims [\"A\"]"));
  CHECK(has(one[0].message, "the same node structure"));
  // 5 GPUs per node: every group is one node.
  CHECK(warnings(mesh_context({3, 5}, {"A", "B"}, {}, 5), "R,P(sum)", "1:P(sum)->R").empty());
  // An all_reduce then a reduce_scatter on 5,3: the reduce_scatter's groups of 3 hold equal
  // inputs and straddle nodes differently (ranks 6,7 | 8).
  MeshContext ab = mesh_context({5, 3}, {"A", "B"});
  const std::vector<Warning> kinds = warnings(ab, "P(sum),P(sum)", "0:P(sum)->R 1:P(sum)->S(0)");
  REQUIRE(kinds.size() == 1);
  CHECK(kinds[0].mesh_dims == std::vector<std::int32_t>{1});
  CHECK(has(kinds[0].message, "the reduce_scatter on mesh dim \"B\""));
  // The other order: the all_reduce's groups hold different pieces (S(0) on B), not replicas.
  CHECK(warnings(ab, "P(sum),P(sum)", "1:P(sum)->S(0) 0:P(sum)->R").empty());
}

TEST_CASE("divergence: planned plans warn merged or not, greedy or min-cost") {
  MeshContext ctx = mesh_context({7, 1, 6}, {"B", "C", "D"}, {{"B", "D"}});
  auto planner = testing::make_planner(ctx, CostModelKind::kNccl);
  const auto src = testing::spec_of({42, 5}, "P(sum),P(sum),P(sum)", {7, 1, 6});
  const auto dst = testing::spec_of({42, 5}, "R,S(0),R", {7, 1, 6});
  auto reasons = [&](PlannerKind kind, bool merge) {
    std::vector<WarningReason> out;
    const RedistPlan p = planner->plan_uncached(src, dst, {kind, merge}).value();
    for (const Warning& w : p.warnings) out.push_back(w.reason);
    return out;
  };
  CHECK(reasons(PlannerKind::kGreedy, true).empty());
  CHECK(reasons(PlannerKind::kMinCost, true).empty());
  const std::vector<WarningReason> divergent = {WarningReason::kDivergentReplicas};
  CHECK(reasons(PlannerKind::kGreedy, false) == divergent);
  CHECK(reasons(PlannerKind::kMinCost, false) == divergent);
}

// Random requests (meshes of 1-4 dims up to 32 ranks, random flattened meshes, 1-8 GPUs per node,
// f32 or bf16), each planned by greedy and min-cost with merging on and off and verified with
// float values on the h100-dgx profile's NCCL orders.
TEST_CASE("divergence property: verify finds divergent replicas only where a warning was given") {
  std::mt19937_64 rng(28);
  const cost::HardwareProfile profile = testing::profile("h100-dgx");
  int plans = 0, divergent = 0, warned = 0;
  for (int i = 0; i < 150; ++i) {
    testing::RandomRequest req = testing::random_request(rng, i % 4 == 0, i % 2 == 0);
    const core::DType dtype = i % 3 == 0 ? core::DType::kBF16 : core::DType::kF32;
    auto src = placement::TensorSpec::make(req.src.shape(), dtype, req.src.placements(), req.mesh,
                                           req.src.shard_order());
    auto dst = placement::TensorSpec::make(req.dst.shape(), dtype, req.dst.placements(), req.mesh,
                                           req.dst.shard_order());
    REQUIRE(src.ok());
    REQUIRE(dst.ok());
    testing::Names names;
    for (std::size_t d = 0; d < req.mesh.size(); ++d) names.push_back("d" + std::to_string(d));
    const auto flats = testing::random_flatten_sets(rng, names);
    auto planner = testing::make_planner(
        testing::mesh_context(req.mesh, names, flats, testing::uniform(rng, 1, 8)),
        CostModelKind::kNccl);
    INFO(req.describe());
    for (PlannerKind kind : {PlannerKind::kGreedy, PlannerKind::kMinCost}) {
      if (kind == PlannerKind::kGreedy && needs_min_cost(*src, *dst)) continue;
      for (bool merge : {true, false}) {
        auto plan = planner->plan_uncached(*src, *dst, {kind, merge});
        REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? std::string() : plan.error().message));
        auto report = sim::verify_plan(*plan, {.values = sim::ValueKind::kFloat,
                                               .seed = static_cast<std::uint64_t>(i),
                                               .hardware = profile});
        REQUIRE_MESSAGE(report.ok(), (report.ok() ? std::string() : report.error().message));
        INFO(planner_name(kind) << (merge ? " merged: " : " unmerged: ") << plan->trace);
        CHECK(report->wrong_elements == 0);
        const bool has_warning = std::any_of(
            plan->warnings.begin(), plan->warnings.end(),
            [](const Warning& w) { return w.reason == WarningReason::kDivergentReplicas; });
        if (!report->replicas_bitwise_equal) CHECK(has_warning);
        ++plans;
        divergent += report->replicas_bitwise_equal ? 0 : 1;
        warned += has_warning ? 1 : 0;
      }
    }
  }
  MESSAGE("plans " << plans << ", divergent " << divergent << ", warned " << warned);
  CHECK(divergent > 0);  // the property was put to the test
}

}  // namespace
}  // namespace dtplan::redist
