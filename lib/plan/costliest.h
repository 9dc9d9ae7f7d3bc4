#pragma once
// The costliest redistributions of a plan per training step: each redistribution's
// total_cost_us times its runs per step (step_runs.h), ranked by that, then by its consumer op's
// name, then by the consumer's input slot (a written order for equal costs).
//
//   costliest_redistributions(plan, 10)[0]   // {index 17, runs 2, step_us 812.4}: the plan's
//                                            // redistributions[17] costs the most per step

#include <cstddef>
#include <cstdint>
#include <vector>

#include "plan/plan.h"

namespace dtplan::plan {

struct RankedRedistribution {
  std::size_t index = 0;  // into plan.redistributions
  std::int64_t runs = 0;  // per training step
  double step_us = 0;     // total_cost_us x runs
  bool operator==(const RankedRedistribution&) const = default;
};

// @pre check_plan(plan) passed.
// @post at most n entries, those with step_us > 0 only, in the order above.
std::vector<RankedRedistribution> costliest_redistributions(const Plan& plan, std::size_t n);

}  // namespace dtplan::plan
