#pragma once
// Internal to the exact solver: the exact solve of a simplified problem, repeats shared, memory
// rows through the relaxation first (a labelling that meets them anyway is optimal), then the
// Lagrangian dual and exact solves over growing windows of it (lagrange.h, window.h).

#include <vector>

#include "solve/engine/model.h"
#include "solve/engine/search.h"
#include "solve/problem.h"
#include "solve/solver.h"

namespace dtplan::solve::detail {

// A simplified problem's exact solve: `sol` in the engine's variables, and `bound`, a lower bound
// on the problem's optimum beside sol.lower_bound_us; `full` and `rows` are kept for
// explain_infeasible().
struct ReducedSolve {
  EngineSolution sol;
  double bound = -kForbidden;
  EngineProblem full;
  std::vector<MemoryRow> rows;
};

// `incumbent_us`: the cost of a labelling known elsewhere; the memory-aware solve may stop once
// its best labelling or that one is within SolveOptions::relative_gap of its bound.
ReducedSolve solve_reduced(Problem problem, const SolveOptions& options, const EngineOptions& eo,
                           SolverStats& stats, double incumbent_us = kForbidden);

}  // namespace dtplan::solve::detail
