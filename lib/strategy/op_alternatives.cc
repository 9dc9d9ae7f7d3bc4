#include "strategy/op_alternatives.h"

#include <algorithm>
#include <cmath>

#include "core/strings.h"
#include "solve/evaluate.h"

namespace dtplan::strategy {

namespace {

std::string first_violation(const solve::Evaluation& e) {
  if (e.violations.empty()) return "";
  const solve::Violation& v = e.violations.front();
  return std::string(solve::violation_name(v.kind)) + ": " + v.message;
}

// The sort key of a delta: whole picoseconds (the cost model's resolution: its times are sums
// of integer picoseconds, so deltas that print alike differ only in rounding), non-finite last.
double sort_key(double delta) {
  return std::isfinite(delta) ? static_cast<double>(std::llround(delta * 1e6)) : INFINITY;
}

// Sets every follower of `leader` (transitively; followers form a forest) to the label its map
// gives for its leader's label; -1 where the map has none (evaluate() rejects that labelling as
// out of range, so the caller reports it as infeasible first).
// @return false when some follower has no label for its leader's.
bool follow(const solve::Problem& problem, solve::NodeIndex leader,
            std::vector<solve::LabelIndex>& labels) {
  std::vector<solve::NodeIndex> stack = {leader};
  while (!stack.empty()) {
    const solve::NodeIndex n = stack.back();
    stack.pop_back();
    for (const solve::Follower& f : problem.followers) {
      if (f.leader != n) continue;
      const auto leader_label = static_cast<std::size_t>(labels[static_cast<std::size_t>(n)]);
      const solve::LabelIndex l = f.label_map[leader_label];
      if (l < 0) return false;
      labels[static_cast<std::size_t>(f.node)] = l;
      stack.push_back(f.node);
    }
  }
  return true;
}

}  // namespace

core::Result<std::vector<std::int32_t>> plan_choice(const graph::Graph& graph,
                                                    const GraphStrategies& strategies,
                                                    const plan::Plan& plan) {
  std::vector<std::int32_t> choice(graph.size(), -1);
  for (const plan::PlanOp& op : plan.ops) {
    const std::optional<graph::NodeId> id = graph.find(op.name);
    if (!id) {
      return core::Error::bad_input("op '" + op.name + "': not in the model rebuilt for the plan");
    }
    const graph::Node& n = graph.node(*id);
    if (!n.outputs.empty() && n.outputs[0].shape != op.shape) {
      return core::Error::bad_input(
          "op '" + op.name + "': shape " + core::format_int_list(op.shape) + " in the plan, " +
          core::format_int_list(n.outputs[0].shape) +
          " in the model rebuilt for it (planned with another --batch or --seq-len?)");
    }
    const OpStrategy& s = strategies.of(*id);
    std::int32_t found = -1;
    for (std::size_t k = 0; k < s.size() && found < 0; ++k) {
      if (format_strategy(s.strategies[k]) == op.strategy) found = static_cast<std::int32_t>(k);
    }
    if (found < 0 && s.size() > 0) {
      return core::Error::bad_input("op '" + op.name + "': the plan's strategy " + op.strategy +
                                    " is not among the op's " + std::to_string(s.size()) +
                                    " strategies in the rebuilt model");
    }
    choice[static_cast<std::size_t>(graph::index_of(*id))] = found;
  }
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const graph::NodeId id{static_cast<std::int32_t>(i)};
    if (choice[i] < 0 && strategies.of(id).size() > 0) {
      return core::Error::bad_input("op '" + graph.node(id).name +
                                    "': in the model rebuilt for the plan, not in the plan");
    }
  }
  return choice;
}

core::Result<OpAlternatives> op_alternatives(const PlanProblem& pp,
                                             std::span<const std::int32_t> choice,
                                             graph::NodeId node) {
  const SelectionProblem& sp = pp.selection;
  const std::int32_t p = sp.problem_node[static_cast<std::size_t>(graph::index_of(node))];
  if (p < 0) return core::Error::bad_input("the op is not a choice of the plan's problem");
  std::vector<solve::LabelIndex> labels = labels_of(sp, choice);
  DTPLAN_TRY(const solve::Evaluation base, solve::evaluate(sp.problem, labels));
  OpAlternatives out;
  out.chosen = choice[static_cast<std::size_t>(graph::index_of(node))];
  out.objective_us = base.total_us;
  out.chosen_infeasible = first_violation(base);
  const OpStrategy& s = pp.strategies.of(node);
  std::vector<std::int32_t> switched(choice.begin(), choice.end());
  for (std::size_t k = 0; k < s.size(); ++k) {
    const auto strategy = static_cast<std::int32_t>(k);
    switched[static_cast<std::size_t>(graph::index_of(node))] = strategy;
    std::vector<solve::LabelIndex> alt = labels;
    alt[static_cast<std::size_t>(p)] = labels_of(sp, switched)[static_cast<std::size_t>(p)];
    if (!follow(sp.problem, p, alt)) {
      const std::vector<double>& own = sp.problem.nodes[static_cast<std::size_t>(p)].cost_us;
      out.alternatives.push_back(
          {.strategy = strategy,
           .text = format_strategy(s.strategies[k]),
           .compute_us = own[static_cast<std::size_t>(alt[static_cast<std::size_t>(p)])],
           .objective_us = INFINITY,
           .delta_us = INFINITY,
           .infeasible = "follower: an op tied to it has no strategy "
                         "for this one"});
      continue;
    }
    DTPLAN_TRY(const solve::Evaluation e, solve::evaluate(sp.problem, alt));
    out.alternatives.push_back({.strategy = strategy,
                                .text = format_strategy(s.strategies[k]),
                                .compute_us = e.node_us[static_cast<std::size_t>(p)],
                                .objective_us = e.total_us,
                                .delta_us = e.total_us - base.total_us,
                                .infeasible = first_violation(e)});
  }
  std::sort(out.alternatives.begin(), out.alternatives.end(),
            [](const Alternative& a, const Alternative& b) {
              const double da = sort_key(a.delta_us);
              const double db = sort_key(b.delta_us);
              if (da != db) return da < db;
              return a.strategy < b.strategy;
            });
  return out;
}

}  // namespace dtplan::strategy
