#include "strategy/constraints.h"

#include <algorithm>
#include <map>

namespace dtplan::strategy {

namespace {

using placement::Placement;

Placements replicated(std::size_t mesh_ndim) { return Placements(mesh_ndim, Placement{}); }

}  // namespace

Placements default_input_placements(std::size_t rank, std::size_t mesh_ndim) {
  Placements out = replicated(mesh_ndim);
  if (rank >= 1 && mesh_ndim >= 1) out[0] = Placement::shard(0);
  return out;
}

Placements default_output_placements(std::size_t rank, std::size_t mesh_ndim) {
  Placements out = default_input_placements(rank, mesh_ndim);
  if (rank >= 2 && mesh_ndim >= 2) {
    out[mesh_ndim - 1] = Placement::shard(static_cast<std::int32_t>(rank - 1));
  }
  return out;
}

bool offers(const OpStrategy& op, const Placements& placements) {
  return std::any_of(op.strategies.begin(), op.strategies.end(), [&](const Strategy& s) {
    return !s.outputs.empty() && s.outputs[0] == placements;
  });
}

Constraints default_constraints(const graph::Graph& graph, const GraphStrategies& strategies,
                                std::size_t mesh_ndim) {
  Constraints c;
  std::map<std::int32_t, Placements> pins;  // by node index: graph order
  auto pin = [&](graph::NodeId id, Placements placements) {
    const OpStrategy& op = strategies.of(id);
    if (!offers(op, placements)) return;
    pins.emplace(graph::index_of(id), std::move(placements));
  };
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const graph::Node& node = graph.nodes()[i];
    if (node.outputs.empty()) continue;
    const std::size_t rank = node.outputs[0].shape.size();
    if (node.role == core::OpRole::kInput) {
      pin(graph::node_id(i), default_input_placements(rank, mesh_ndim));
    } else if (node.role == core::OpRole::kOutput) {
      pin(graph::node_id(i), default_output_placements(rank, mesh_ndim));
    }
  }
  // Ties: each pair once, leader = the earlier node; pins copied across.
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const graph::Node& node = graph.nodes()[i];
    if (node.pair == graph::kNoNode || !graph.contains(node.pair)) continue;
    const auto self = static_cast<std::int32_t>(i);
    const std::int32_t other = graph::index_of(node.pair);
    if (other >= self) continue;  // listed from the later end
    c.ties.push_back({node.pair, graph::node_id(i)});
    auto a = pins.find(other);
    auto b = pins.find(self);
    if (a != pins.end() && b == pins.end()) {
      pin(graph::node_id(i), a->second);
    } else if (b != pins.end() && a == pins.end()) {
      pin(node.pair, b->second);
    }
  }
  for (auto& [index, placements] : pins) {
    c.pins.push_back({graph::NodeId{index}, std::move(placements)});
  }
  return c;
}

}  // namespace dtplan::strategy
