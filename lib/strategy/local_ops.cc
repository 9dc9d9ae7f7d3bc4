#include "strategy/local_ops.h"

#include <map>

namespace dtplan::strategy {

namespace {

// The strategy of `op` whose input slot k reads exactly `produced[k]`, the cheapest in compute
// (ties: the lowest index); -1 when none does.
std::int32_t cheapest_reading(const OpStrategy& op,
                              const std::vector<const Placements*>& produced) {
  std::int32_t best = -1;
  for (std::size_t s = 0; s < op.strategies.size(); ++s) {
    const Strategy& st = op.strategies[s];
    if (st.inputs.size() != produced.size()) continue;
    bool as_produced = true;
    for (std::size_t k = 0; k < produced.size() && as_produced; ++k) {
      as_produced = st.inputs[k] == *produced[k];
    }
    if (!as_produced) continue;
    if (best < 0 || st.compute_us < op.strategies[static_cast<std::size_t>(best)].compute_us) {
      best = static_cast<std::int32_t>(s);
    }
  }
  return best;
}

}  // namespace

std::int32_t one_layout(const OpStrategy& op, const std::vector<char>& allowed) {
  std::int32_t first = -1;
  for (std::size_t s = 0; s < allowed.size(); ++s) {
    if (allowed[s] == 0) continue;
    if (first < 0) {
      first = static_cast<std::int32_t>(s);
    } else if (op.strategies[s].outputs != op.strategies[static_cast<std::size_t>(first)].outputs) {
      return -1;
    }
  }
  return first;
}

void fix_local_ops(const graph::Graph& graph, const GraphStrategies& strategies,
                   const std::vector<char>& eligible, std::vector<std::int32_t>& fixed) {
  // Identical layers share their strategy lists (graph_strategies.h), so an op position reading
  // the same producers' layouts recurs in every layer: the answer is memoised by the addresses
  // of the op's list and of the layouts it reads, which name the same values wherever they recur.
  std::map<std::vector<const void*>, std::int32_t> memo;
  std::vector<const void*> key;
  std::vector<const Placements*> produced;
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const graph::Node& node = graph.nodes()[i];
    if (eligible[i] == 0 || fixed[i] >= 0 || node.inputs.empty()) continue;
    const std::size_t out = producer_output_index(node);
    produced.clear();
    for (graph::NodeId p : node.inputs) {
      const std::int32_t s = fixed[static_cast<std::size_t>(graph::index_of(p))];
      if (s < 0) break;
      const Strategy& made = strategies.of(p).strategies[static_cast<std::size_t>(s)];
      if (out >= made.outputs.size()) break;
      produced.push_back(&made.outputs[out]);
    }
    if (produced.size() != node.inputs.size()) continue;
    const OpStrategy& op = strategies.of(graph::node_id(i));
    key.assign(1, &op);
    key.insert(key.end(), produced.begin(), produced.end());
    auto [it, inserted] = memo.try_emplace(key, -1);
    if (inserted) it->second = cheapest_reading(op, produced);
    fixed[i] = it->second;
  }
}

}  // namespace dtplan::strategy
