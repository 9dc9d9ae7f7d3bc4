#include "graph/graph_stats.h"

#include <map>
#include <utility>

#include "core/checked.h"

namespace dtplan::graph {

core::Result<GraphStats> graph_stats(const Graph& graph) {
  GraphStats s;
  std::map<std::pair<OpKind, std::string>, std::int64_t> ops;
  std::map<std::int32_t, LayerStats> layers;
  for (const Node& node : graph.nodes()) {
    ++s.nodes;
    const bool forward = node.phase == Phase::kForward;
    (forward ? s.forward_nodes : s.backward_nodes) += 1;
    ++ops[{node.op, node.target}];
    LayerStats& layer = layers[node.layer];
    layer.layer = node.layer;
    ++layer.nodes;
    (forward ? layer.forward_nodes : layer.backward_nodes) += 1;
    if (node.op == OpKind::kAlias) ++layer.alias_nodes;
    if (node.role != core::OpRole::kParam && node.role != core::OpRole::kBuffer) continue;
    const std::string what = "parameter bytes";
    for (const TensorMeta& m : node.outputs) {
      DTPLAN_TRY(std::int64_t n, numel(m, what));
      DTPLAN_TRY(std::int64_t b, bytes(m, what));
      if (node.role == core::OpRole::kBuffer) {
        DTPLAN_TRY(s.buffer_bytes, core::checked_add(s.buffer_bytes, b, what));
        continue;
      }
      DTPLAN_TRY(s.params, core::checked_add(s.params, n, what));
      DTPLAN_TRY(s.param_bytes, core::checked_add(s.param_bytes, b, what));
      DTPLAN_TRY(layer.params, core::checked_add(layer.params, n, what));
      DTPLAN_TRY(layer.param_bytes, core::checked_add(layer.param_bytes, b, what));
    }
  }
  for (auto& [key, count] : ops) s.op_counts.push_back(OpCount{key.first, key.second, count});
  for (auto& [id, layer] : layers) s.layers.push_back(layer);
  for (const RepeatGroup& g : graph.repeats()) {
    ++s.repeat_groups;
    s.repeated_layers += static_cast<std::int64_t>(g.layers.size());
  }
  return s;
}

std::int64_t op_count(const GraphStats& stats, OpKind op) {
  std::int64_t n = 0;
  for (const OpCount& c : stats.op_counts) {
    if (c.op == op) n += c.count;
  }
  return n;
}

}  // namespace dtplan::graph
