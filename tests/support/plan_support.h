#pragma once
// Hand-made whole-model plans for the tests of lib/plan and its readers: ops with producers and
// redistributions planned by a real redist::Planner, so every plan passes plan::check_plan.
#include <string>
#include <vector>

#include "plan/plan.h"

namespace dtplan::testing {

// A plan on a (2,2,2) mesh A,B,C with the flattened mesh A_C and 4 ops:
//   0 x       placeholder input      [16,16] S(0),R,R
//   1 w       placeholder parameter  [16,16] R,S(1),R
//   2 y = mm(x, w)                   needs x as R,R,R  (one redistribution, all_gather on A)
//   3 z = add(y, y)                  needs y as R,R,R  (P(sum) on B -> all_reduce)
// with cost, memory, solver and collective summaries filled in from the redistributions.
plan::Plan small_model_plan();

// The redistribution of `plan` of a (src, dst) request on its mesh, planned by the NCCL model.
redist::RedistPlan planned(const redist::MeshDescription& mesh, std::vector<std::int64_t> shape,
                           const std::string& src, const std::string& dst);

}  // namespace dtplan::testing
