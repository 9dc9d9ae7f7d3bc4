#pragma once
// The ILP backend: AutoParallel's formulation (docs/reference/strategy_selection.md §1.3–§1.5)
// solved by COIN-OR CBC, to check the exact solver against the solver AutoParallel uses.
//
// One binary x[v,a,o,j] per consumer argument a (an incoming edge u -> v, by slot) and pair of
// consumer label o and producer label j; one x[v,0,o,0] per label of a node without inputs.
// Cost c = B_e[j][o] + U_v[o] / A_v (the compute cost split over the A_v arguments, so it counts
// once). Rows, with y_v[o] = Σ_j x[v,0,o,j]:
//   uniqueness     Σ_{o,j} x[v,a,o,j] = 1                    per (v, a)
//   same output    Σ_j x[v,0,o,j] = Σ_j x[v,a,o,j]           per v, a >= 1, o
//   flow           y_u[j] = Σ_o x[v,a,o,j]                   per edge u -> v (slot a), j
//                  (every slot is tied, also a producer feeding two slots: the gap of
//                  docs/reference/strategy_selection.md §1.5 rule 3 is not reproduced)
//   followers      y_f[o] = Σ_{j: map[j] = o} y_leader[j]     per follower, o
//   memory         low <= Σ bytes[o] y_v[o] <= high           per row (divided by the bytes' gcd)
// Infinite costs and pinned-out labels are pruned (no variable), as Appendix A.5 recommends,
// instead of AutoParallel's 10000-cost variables fixed to 0. Repeated layers are solved unrolled:
// AutoParallel's clustering would force all layers to one choice, which is not exact.
// CBC runs single-threaded with its default search (what PuLP's CBC call does) and prints nothing;
// the lower bound is CBC's best possible objective. The time limit is wall time from the call,
// building the formulation included: the builder checks it per node, CBC gets what is left as its
// elapsed-time limit, and event handlers stop CLP's simplex (per iteration) and CBC's search (per
// node, heuristic and cut pass) once it has passed, so a solve overruns it by at most one simplex
// iteration or one CBC event (plus copying the formulation into CBC).
//
// Example: problem.h's two-node example has 2 variables for a (no input) and 4 for b's argument;
// rows: 2 uniqueness + 2 flow; optimum x[a,0,1,0] = x[b,0,1,1] = 1, objective 2.

#include <memory>

#include "core/result.h"
#include "solve/solver.h"

namespace dtplan::solve {

// True when dtplan was built with CBC.
bool ilp_available();

// The CBC-backed solver named "ilp"; kBackendMissing when dtplan was built without CBC.
core::Result<std::unique_ptr<Solver>> make_ilp_solver();

}  // namespace dtplan::solve
