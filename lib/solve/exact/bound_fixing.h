#pragma once
// Internal to the exact solver: bound fixing (dual_bound.h), its driver where the LP bound runs.
//
// With the LP bound LB, its labelling (cost UB) and per-label bounds, the labels whose bound
// exceeds a threshold T are pinned away and the rest solved exactly. Every labelling using a
// pinned label costs more than T, so a window optimum costing at most T is the optimum; otherwise
// T grows (LB + (UB - LB)/64, then x8 per window, up to UB, the cost of the best labelling so far:
// the LP's (repaired where it breaks a memory row) or the short chain's, lowered by any window's
// optimum above its T; the UB labelling itself is in that last window; without a finite LP
// labelling or any feasible one, the whole problem is solved). Small windows keep few labels,
// which is what makes 3-D meshes' 30-128-label domains tractable. With `use` kTightOnly, only a
// tight LP's labelling is taken; otherwise the plain exact solve runs, with the best labelling so
// far kept where it stops first. The short chain's incumbent comes first with windows, and with
// memory rows either way: a memory-bound plain solve (the Lagrangian path) can take long to find a
// good labelling of its own. The long chain's LP starts from the short chain's messages, and its
// passes stop once the bound settles the incumbent; priced at the short chain's rate and not
// settled, the two-plan window (offer_two_plan_window) runs before the others where it is much
// the smaller. With SolveOptions::relative_gap, the solve stops once the incumbent is within the
// gap of the bound (T stops short of UB by the gap).

#include "core/result.h"
#include "solve/engine/search.h"
#include "solve/exact/answer.h"
#include "solve/exact/lp_phase.h"
#include "solve/lp/dual_bound.h"
#include "solve/problem.h"
#include "solve/solver.h"

namespace dtplan::solve::detail {

// @pre use != BoundUse::kNone; `problem` simplified. `given`: this problem's LP bound, already
// computed (a short chain's own solve), so neither it nor a short chain runs again.
core::Result<Answer> solve_fixed(Problem problem, const SolveOptions& options,
                                 const EngineOptions& eo, SolverStats& stats, BoundUse use,
                                 const DualBound* given = nullptr);

}  // namespace dtplan::solve::detail
