// costliest_redistributions(): ranked by cost x runs per step, then consumer name, then slot;
// free redistributions left out; at most n.

#include "plan/costliest.h"

#include <doctest/doctest.h>

namespace dtplan::plan {
namespace {

PlanOp op(std::string name, OpSchedule schedule = OpSchedule::kMicrobatch) {
  PlanOp o;
  o.name = std::move(name);
  o.schedule = schedule;
  return o;
}

PlanRedistribution redistribution(std::int32_t consumer, std::int32_t slot, double cost_us) {
  const std::vector<std::int64_t> mesh = {2};
  auto spec = placement::TensorSpec::make({4}, core::DType::kF32,
                                          {placement::Placement::replicate()}, mesh);
  REQUIRE(spec.ok());
  PlanRedistribution r{consumer, slot, 0, redist::RedistPlan{{}, *spec, *spec}};
  r.plan.total_cost_us = cost_us;
  return r;
}

TEST_CASE("costliest redistributions: cost x runs, then consumer name, then slot") {
  Plan p;
  p.training.grad_accum = 2;
  // 0 produces; "b" and "a" consume; "c" is recomputed (its inputs redistribute twice per run).
  p.ops = {op("x"), op("b"), op("a"), op("c", OpSchedule::kRecompute)};
  p.redistributions = {redistribution(1, 0, 5), redistribution(1, 1, 5), redistribution(2, 0, 5),
                       redistribution(3, 0, 3), redistribution(3, 1, 0)};
  const std::vector<RankedRedistribution> all = costliest_redistributions(p, 10);
  // c: 3 us x 2 microbatches x 2 = 12; then a (10), b slot 0 (10), b slot 1 (10); the free
  // redistribution is left out.
  REQUIRE(all.size() == 4);
  CHECK(all[0] == RankedRedistribution{3, 4, 12.0});
  CHECK(all[1] == RankedRedistribution{2, 2, 10.0});
  CHECK(all[2] == RankedRedistribution{0, 2, 10.0});
  CHECK(all[3] == RankedRedistribution{1, 2, 10.0});
  const std::vector<RankedRedistribution> two = costliest_redistributions(p, 2);
  CHECK(two == std::vector<RankedRedistribution>(all.begin(), all.begin() + 2));
  CHECK(costliest_redistributions(Plan{}, 10).empty());
}

}  // namespace
}  // namespace dtplan::plan
