#pragma once
// Internal to lib/solve: why a problem the exact solver proved infeasible has no labelling, in
// words a user can act on.
//
// Each memory row is tried alone against the forbidden labels and pairs: the fewest bytes it can
// hold (every cost 0, +inf kept, the row's bytes as unary costs) above its budget, or the most
// below its floor, names the row and both figures; otherwise the rows together, or the forbidden
// labels and pairs alone, are to blame.
//
// Example: a 10 GiB budget under parameters that need at least 12 GiB sharded as far as they go:
// "infeasible: memory budget 10737418240 below minimum 12884901888 (memory row 'memory', bytes)".

#include <vector>

#include "core/result.h"
#include "solve/engine/search.h"
#include "solve/problem.h"

namespace dtplan::solve::detail {

// @pre `full` is the factor graph of a problem (memory rows as Pareto frontiers on its unaries)
// that no labelling satisfies; `rows` its memory rows, in order.
core::Error explain_infeasible(const EngineProblem& full, const std::vector<MemoryRow>& rows,
                               const EngineOptions& eo);

}  // namespace dtplan::solve::detail
