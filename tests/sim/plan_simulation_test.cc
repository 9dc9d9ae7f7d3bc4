// simulate_redistribution / simulate_model_plan: per-step group traces in cost-only mode (one
// entry per group, the NCCL model's algorithm per group), data verification, duplicate
// redistributions verified once, oversized data runs skipped rather than failed.

#include "sim/plan_simulation.h"

#include <doctest/doctest.h>

#include "redist/planner.h"
#include "support/placement_specs.h"
#include "support/plan_support.h"
#include "support/profiles.h"
#include "support/redist_support.h"

namespace dtplan::sim {
namespace {

redist::RedistPlan ddp_fsdp_plan(std::int64_t elements, bool flatten) {
  const redist::MeshContext ctx = testing::mesh_context(
      {8, 5}, {"ddp", "fsdp"},
      flatten ? std::vector<testing::Names>{{"ddp", "fsdp"}} : std::vector<testing::Names>{});
  auto planner = testing::make_planner(ctx, redist::CostModelKind::kNccl);
  return planner
      ->plan_uncached(testing::spec_of({elements}, "P(sum),P(sum)", {8, 5}),
                      testing::spec_of({elements}, "R,R", {8, 5}), {})
      .value();
}

TEST_CASE("plan simulation: one trace entry per group, algorithms chosen per group") {
  SimulateOptions o;
  o.hardware = testing::profile("h100-dgx");
  // 2 MiB per rank: the fsdp groups inside one node run NVLS, those spanning two nodes Ring.
  const RedistSimulation s = simulate_redistribution(ddp_fsdp_plan(524288, false), o).value();
  REQUIRE(s.steps.size() == 2);
  CHECK(s.world_size == 40);
  CHECK(s.steps[0].size() == 5);  // ddp: 5 groups of 8
  CHECK(s.steps[1].size() == 8);  // fsdp: 8 groups of 5
  int nvls = 0, ring = 0;
  for (const TraceEntry& e : s.steps[1]) {
    nvls += e.algorithm == cost::Algorithm::kNvls;
    ring += e.algorithm == cost::Algorithm::kRing;
    // One node <=> NVLS.
    CHECK((e.algorithm == cost::Algorithm::kNvls) == (e.ranks.front() / 8 == e.ranks.back() / 8));
  }
  CHECK(nvls == 4);
  CHECK(ring == 4);
  CHECK_FALSE(s.verify.has_value());
  // A world smaller than the mesh is refused.
  o.world_size = 16;
  CHECK_FALSE(simulate_redistribution(ddp_fsdp_plan(64, false), o).ok());
}

TEST_CASE("plan simulation: data runs verify; the #171916 effect shows without flattening") {
  SimulateOptions o;
  o.hardware = testing::profile("h100-dgx");
  o.data = true;
  const RedistSimulation two = simulate_redistribution(ddp_fsdp_plan(524288, false), o).value();
  REQUIRE(two.verify.has_value());
  CHECK(two.verify->wrong_elements == 0);
  CHECK_FALSE(two.verify->replicas_bitwise_equal);
  const RedistSimulation one = simulate_redistribution(ddp_fsdp_plan(524288, true), o).value();
  REQUIRE(one.verify.has_value());
  CHECK(one.steps.size() == 1);
  CHECK(one.verify->wrong_elements == 0);
  CHECK(one.verify->replicas_bitwise_equal);
  // Too large to hold: skipped, not an error.
  o.verify.max_bytes = 1024;
  const RedistSimulation skipped = simulate_redistribution(ddp_fsdp_plan(4096, false), o).value();
  CHECK_FALSE(skipped.verify.has_value());
  CHECK(skipped.skipped.find("limit") != std::string::npos);
}

TEST_CASE("plan simulation: a whole-model plan, duplicates verified once") {
  plan::Plan p = testing::small_model_plan();
  SimulateOptions o;
  o.hardware = testing::profile("h100-dgx");
  o.data = true;
  ModelSimulation s = simulate_model_plan(p, o).value();
  REQUIRE(s.redistributions.size() == p.redistributions.size());
  CHECK(s.verified == static_cast<std::int64_t>(p.redistributions.size()));
  CHECK(s.distinct_verified == s.verified);
  CHECK(s.wrong_elements == 0);
  CHECK(s.replicas_bitwise_equal);
  CHECK(s.calls >= 2);
  // The same redistribution twice (another consumer slot would be a repeated layer): one run.
  plan::Plan twice = p;
  twice.redistributions.push_back(p.redistributions.back());
  twice.redistributions.back().consumer = p.redistributions.back().consumer;
  s = simulate_model_plan(twice, o).value();
  CHECK(s.verified == static_cast<std::int64_t>(twice.redistributions.size()));
  CHECK(s.distinct_verified == static_cast<std::int64_t>(p.redistributions.size()));
  CHECK(s.redistributions.back().verify == s.redistributions[p.redistributions.size() - 1].verify);
}

TEST_CASE("plan simulation: a model plan's redistributions trace as if simulated alone") {
  // They share one fake process group (its cost model's memo), which must not show: calls are
  // numbered from 0 in each.
  plan::Plan p = testing::small_model_plan();
  SimulateOptions o;
  o.hardware = testing::profile("h100-dgx");
  const ModelSimulation s = simulate_model_plan(p, o).value();
  REQUIRE(s.redistributions.size() == p.redistributions.size());
  REQUIRE(p.redistributions.size() >= 2);
  bool calls = false;
  for (std::size_t i = 0; i < p.redistributions.size(); ++i) {
    CAPTURE(i);
    CHECK(s.redistributions[i] == simulate_redistribution(p.redistributions[i].plan, o).value());
    for (const auto& step : s.redistributions[i].steps) calls = calls || !step.empty();
  }
  CHECK(calls);
}

}  // namespace
}  // namespace dtplan::sim
