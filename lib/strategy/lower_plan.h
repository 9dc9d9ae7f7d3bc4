#pragma once
// lower_plan(): a chosen strategy per graph node lowered to a plan::Plan (AutoParallel study
// docs/reference/strategy_selection.md §4.2): every op (the graph's output node aside) in graph
// order with its strategy, compute time, producers and output placements; every input slot whose
// producer's output placements differ from what the consumer's strategy expects gets the
// redistribution redist::Planner plans for it (greedy or min-cost as DTensor chooses, merged on
// flattened meshes where the rules allow); each op's schedule (step_schedule.h) and the step's
// options; then the summaries (plan_summary.h, per training step) and the per-rank memory
// (memory_model.h). The solver figures (plan.solver) are the caller's to fill in.
//
//   auto plan = lower_plan({graph, strategies, choice, terms}, coster).value();
//   plan.cost.total_us == the labelling's objective (up to summation order)

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/result.h"
#include "graph/graph.h"
#include "plan/plan.h"
#include "strategy/edge_cost.h"
#include "strategy/graph_strategies.h"
#include "strategy/memory_model.h"

namespace dtplan::strategy {

struct LowerInput {
  const graph::Graph& graph;
  const GraphStrategies& strategies;
  std::span<const std::int32_t> choice;  // per graph node; -1 for nodes without strategies
  const MemoryTerms& memory;
  std::optional<std::int64_t> memory_limit_bytes;  // recorded in plan.memory.limit_bytes
  core::TrainingOptions training{};                // plan.training; the ops' schedules follow
};

// @pre choice has one entry per graph node, a valid strategy for every node with strategies.
// @post errors: kUnsupported when a chosen pair cannot be redistributed (a labelling the
//   solver forbids); kBadInput from the planner. The plan passes plan::check_plan.
core::Result<plan::Plan> lower_plan(const LowerInput& input, EdgeCoster& coster);

}  // namespace dtplan::strategy
