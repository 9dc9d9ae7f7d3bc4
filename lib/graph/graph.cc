#include "graph/graph.h"

#include <algorithm>

#include "core/limits.h"

namespace dtplan::graph {

std::vector<NodeId> distinct_inputs(const Node& node) {
  std::vector<NodeId> out;
  out.reserve(node.inputs.size());
  if (node.inputs.size() <= 16) {
    for (NodeId in : node.inputs) {
      if (std::find(out.begin(), out.end(), in) == out.end()) out.push_back(in);
    }
    return out;
  }
  std::vector<NodeId> sorted = node.inputs;
  std::sort(sorted.begin(), sorted.end());
  std::vector<bool> taken(sorted.size(), false);
  for (NodeId in : node.inputs) {
    auto pos = static_cast<std::size_t>(std::lower_bound(sorted.begin(), sorted.end(), in) -
                                        sorted.begin());
    if (!taken[pos]) {
      taken[pos] = true;
      out.push_back(in);
    }
  }
  return out;
}

core::Result<NodeId> Graph::add_node(Node node) {
  if (static_cast<std::int64_t>(nodes_.size()) >= core::kMaxGraphNodes) {
    return core::Error::unsupported("graph '" + name_ + "': more than " +
                                    std::to_string(core::kMaxGraphNodes) + " nodes" +
                                    core::limit_note("kMaxGraphNodes"));
  }
  if (node.name.empty()) {
    return core::Error::bad_input("node #" + std::to_string(nodes_.size()) +
                                  " field 'name': must not be empty");
  }
  if (by_name_.contains(node.name)) {
    return core::Error::bad_input(node_label(node.name) +
                                  " field 'name': duplicate name (names must be unique)");
  }
  for (std::size_t slot = 0; slot < node.inputs.size(); ++slot) {
    if (!contains(node.inputs[slot])) {
      return core::Error::bad_input(
          node_label(node.name) + " field 'inputs'[" + std::to_string(slot) + "]: node id " +
          std::to_string(index_of(node.inputs[slot])) + " is not an earlier node");
    }
  }
  NodeId id = node_id(nodes_.size());
  by_name_.emplace(node.name, id);
  nodes_.push_back(std::move(node));
  return id;
}

std::optional<NodeId> Graph::find(std::string_view name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

UserIndex::UserIndex(const Graph& graph) {
  const std::size_t n = graph.size();
  std::vector<std::int32_t> counts(n + 1, 0);
  // Count distinct consumers: a consumer's slots naming the same producer count once.
  auto for_each_distinct_input = [](const Node& node, auto&& fn) {
    for (NodeId in : distinct_inputs(node)) fn(in);
  };
  for (const Node& node : graph.nodes()) {
    for_each_distinct_input(node, [&](NodeId in) { ++counts[index_of(in) + 1]; });
  }
  offsets_.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) offsets_[i + 1] = offsets_[i] + counts[i + 1];
  users_.resize(offsets_[n]);
  std::vector<std::int32_t> fill(offsets_.begin(), offsets_.end() - 1);
  for (std::size_t i = 0; i < n; ++i) {
    for_each_distinct_input(graph.nodes()[i],
                            [&](NodeId in) { users_[fill[index_of(in)]++] = node_id(i); });
  }
}

std::span<const NodeId> UserIndex::of(NodeId id) const {
  const auto i = static_cast<std::size_t>(index_of(id));
  return std::span<const NodeId>(users_).subspan(offsets_[i], offsets_[i + 1] - offsets_[i]);
}

std::optional<NodeId> find_output_node(const Graph& graph) {
  // The output node is normally last; search backwards.
  for (std::size_t i = graph.size(); i-- > 0;) {
    if (graph.nodes()[i].op == OpKind::kOutput) return node_id(i);
  }
  return std::nullopt;
}

}  // namespace dtplan::graph
