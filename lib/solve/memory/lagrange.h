#pragma once
// Internal to lib/solve: Lagrangian relaxation of the memory rows
// (docs/reference/strategy_selection.md §1.5 rule 9; AutoParallel's PR #484 relaxes the same
// budget).
//
// For multipliers μ (one per row; μ_r >= 0 prices the high bound, μ_r <= 0 the low bound),
//   L(μ) = min_y [ cost(y) + Σ_r μ_r bytes_r(y) ] - Σ_r (μ_r >= 0 ? μ_r high_r : μ_r low_r)
// is a lower bound on the constrained optimum, and min_y is an unconstrained problem of the same
// shape (unary costs c + μ·bytes), solved exactly. L is concave and piecewise linear in each μ_r;
// each row's multiplier is found by a breakpoint search: bracket the constraint with one labelling
// on each side, jump to where their lines cross, and stop when the solve there finds nothing
// below the crossing. Labellings met on the way that satisfy every row are incumbents.
//
// The exact memory-constrained solve then uses (μ, incumbent - L(μ)) as a gap filter on its
// Pareto points (MemoryModel::multiplier), which keeps it small: any point whose reduced cost
// exceeds the gap cannot lead to a labelling cheaper than the incumbent, since the rest of the
// problem costs at least L* - (the entry's least reduced cost) in the relaxation.
//
// Example: one row, high 11 bytes (exact_solver_test's memory chain). μ = 0 gives cost 2 at 20
// bytes (violates); a large μ gives cost 9 at 2 bytes (an incumbent); their lines 2 + 20μ and
// 9 + 2μ cross at μ = 7/18, where nothing is cheaper than the crossing, so L = 2 + 20μ - 11μ = 5.5.
// The optimum, 6 at 11 bytes, lies in the gap [5.5, 9]; the filtered exact solve finds it.

#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "solve/engine/elimination.h"
#include "solve/engine/model.h"
#include "solve/engine/search.h"

namespace dtplan::solve::detail {

struct DualResult {
  std::vector<double> multiplier;  // the μ of the best bound
  double lower_bound_us = -std::numeric_limits<double>::infinity();
  bool found = false;                // some evaluated labelling met every row
  std::vector<std::int32_t> labels;  // the cheapest of those
  double cost_us = std::numeric_limits<double>::infinity();
  std::int32_t evaluations = 0;
  bool stopped = false;  // the deadline passed
};

// Solves an EngineProblem without memory rows exactly (the caller's repeated-layer handling).
using EngineSolve = std::function<EngineSolution(const EngineProblem&)>;

// @pre full.memory.rows() > 0 and every unary of a node with memory terms is a frontier table.
// `relaxed`, when given, is the solution at μ = 0 (the problem without memory rows), reused.
DualResult lagrangian_dual(const EngineProblem& full, const EngineSolve& solve,
                           Clock::time_point deadline, const EngineSolution* relaxed = nullptr);

// Σ of the factors of `problem` at labelling y (frontier unaries count their point's cost).
double labelling_cost(const EngineProblem& problem, const std::vector<std::int32_t>& y);

// The Lagrangian problem at μ: frontier unaries become scalar c + Σ_r μ_r bytes_r, no memory rows;
// everything else shared with `full`.
EngineProblem lagrangian_problem(const EngineProblem& full, const std::vector<double>& mu);

// Σ_r (μ_r >= 0 ? μ_r high_r : μ_r low_r): L(μ) = L*(μ) - this.
double multiplier_offset(const MemoryModel& memory, const std::vector<double>& mu);

}  // namespace dtplan::solve::detail
