#pragma once
// What one op's choice is worth in a plan: the plan's choices mapped back onto the rebuilt
// selection problem (plan_choice), then every strategy of one op priced as if that op alone
// switched to it with every other op's choice fixed (op_alternatives; the ops tied to it as
// followers, such as a parameter's gradient, follow it as the tie maps): the whole objective
// (solve::evaluate, the oracle) and its difference from the plan's, with the constraint an
// alternative breaks (a memory row, a pair DTensor cannot redistribute, a tie).
//
//   DTPLAN_TRY(auto choice, plan_choice(graph, pp.strategies, plan));
//   DTPLAN_TRY(OpAlternatives a, op_alternatives(pp, choice,
//   *graph.find("layers.0.attention.wq.einsum"))); a.alternatives[0]   // the cheapest switch; the
//   chosen strategy has delta_us == 0

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/result.h"
#include "graph/graph.h"
#include "plan/plan.h"
#include "strategy/plan_problem.h"

namespace dtplan::strategy {

struct Alternative {
  std::int32_t strategy = 0;  // index into the op's strategies
  std::string text;           // format_strategy
  double compute_us = 0;      // the op's own term under it (every run in a step)
  double objective_us = 0;    // the whole objective with the op switched (+inf where forbidden)
  double delta_us = 0;        // objective_us minus the plan's objective
  // Empty when every constraint holds; else the first broken one's message
  // ("memory_high: ...", "forbidden_pair: ...").
  std::string infeasible;
  bool operator==(const Alternative&) const = default;
};

struct OpAlternatives {
  std::int32_t chosen = 0;        // the plan's strategy index for the op
  double objective_us = 0;        // the plan's choices on the rebuilt problem
  std::string chosen_infeasible;  // a constraint the plan's own choices break there, if any
  // Every strategy of the op, the chosen one included: by delta_us in whole picoseconds
  // ascending (the cost model's resolution; non-finite last), then by strategy index.
  std::vector<Alternative> alternatives;
};

// One strategy index per graph node from the plan's ops, matched by name and strategy text.
// @post errors (kBadInput) name the first op the graph lacks, or whose strategy the node's
//   strategies lack ("the plan's strategy ... is not among the op's N strategies").
core::Result<std::vector<std::int32_t>> plan_choice(const graph::Graph& graph,
                                                    const GraphStrategies& strategies,
                                                    const plan::Plan& plan);

// @pre choice from plan_choice on pp's graph. @post error (kBadInput) when `node` is not a
//   choice of the problem (the graph's output node).
core::Result<OpAlternatives> op_alternatives(const PlanProblem& pp,
                                             std::span<const std::int32_t> choice,
                                             graph::NodeId node);

}  // namespace dtplan::strategy
