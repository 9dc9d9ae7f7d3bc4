#pragma once
// fix_local_ops(): the ops between a pinned plan's parallel styles as DTensor runs them.
//
// In torchtitan's plan (docs/parallelize.md, "Ops between the parallel styles") only the module
// boundaries redistribute: a parallel style lays out a module's inputs and outputs, and every op
// between two boundaries runs on the local tensors its producers hand it, the layout following
// from theirs. fix_local_ops gives each such op, in graph order, the strategy that reads every
// input exactly as produced (no redistribution), the cheapest in compute when several do (ties:
// the lowest strategy index). An op is fixed only when each of its producers is fixed (pinned or
// fixed before it) and some strategy reads all its inputs as produced; every other op stays free
// for the solver.
//
//   std::vector<std::int32_t> fixed = ...;  // per graph node: a strategy with its layout, or -1
//   fix_local_ops(graph, strategies, eligible, fixed);
//   // fixed[i] >= 0 now also for each eligible node i whose producers were all fixed and which
//   // has a strategy reading them as produced

#include <cstdint>
#include <vector>

#include "graph/graph.h"
#include "strategy/graph_strategies.h"

namespace dtplan::strategy {

// The lowest strategy of `op` that `allowed` marks, when all the marked ones lay their outputs
// out alike; else -1 (also when none is marked). @pre allowed.size() == op.size().
std::int32_t one_layout(const OpStrategy& op, const std::vector<char>& allowed);

// fixed[i]: -1, or a strategy of node i whose outputs are laid out as node i's must be (a pinned
// node whose allowed strategies all lay their outputs out alike gives any one of them).
// @pre eligible.size() == fixed.size() == graph.size().
// @post only entries that were -1 at an eligible node with inputs change.
void fix_local_ops(const graph::Graph& graph, const GraphStrategies& strategies,
                   const std::vector<char>& eligible, std::vector<std::int32_t>& fixed);

}  // namespace dtplan::strategy
