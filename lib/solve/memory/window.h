#pragma once
// Internal to lib/solve: outside tables for the window filter of the memory-constrained solve.
//
// The Lagrangian problem (unary costs c + μ·bytes, no memory rows) is eliminated with exactly the
// structure the memory-aware solve will use (same repeat shapes, same orders), then a backward
// pass gives, for every factor and message, the least Lagrangian cost of everything outside it.
// Shared block interiors get, per entry, the least outside value over all their blocks, which is
// a lower bound for each block. With these tables, a Pareto point whose Lagrangian cost plus its
// outside exceeds the window threshold cannot belong to a labelling within the window.
//
// Example: in a chain a - b - c, the outside of the message from a's bucket (a function of b) is
// min over c of U_b + B_bc + U_c: the exact best completion for each label of b.

#include <memory>
#include <optional>
#include <vector>

#include "solve/engine/elimination.h"
#include "solve/engine/repeated.h"
#include "solve/engine/search.h"

namespace dtplan::solve::detail {

struct OutsideSet {
  std::shared_ptr<const Outside> global;               // per factor of the decomposed problem
  std::vector<std::shared_ptr<const Outside>> groups;  // per shape: per sub-elimination factor
  double lagrangian_min_us = 0;                        // L*: the Lagrangian problem's optimum
};

// @pre `scalar` has no memory rows and the factor structure `shapes` was analysed on.
// @post nullopt when the decomposed problem needs branch-and-bound or a limit stopped a run or
//   the backward pass.
std::optional<OutsideSet> outside_set(const EngineProblem& scalar,
                                      const std::vector<GroupShape>& shapes,
                                      const EngineOptions& options);

}  // namespace dtplan::solve::detail
