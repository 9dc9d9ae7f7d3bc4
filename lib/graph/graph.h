#pragma once
// Graph: the joint forward+backward op graph, nodes in topological order (every input names an
// earlier node, so cycles and forward references cannot be represented), with a name index and
// the repeated-layer annotation (which layer ids are isomorphic copies of each other, as
// AutoParallel's clustering exploits, docs/reference/strategy_selection.md §1.7).
//
//   Graph g("tiny");
//   NodeId x = g.add_node({.name = "x", .op = OpKind::kPlaceholder, ...}).value();
//   NodeId y = g.add_node({.name = "y", .op = OpKind::kNeg, .inputs = {x}, ...}).value();
//   UserIndex users(g);  users.of(x) == {y}

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/result.h"
#include "graph/node.h"

namespace dtplan::graph {

// Layer ids whose node sets are isomorphic: the k-th node (in graph order) of one layer
// corresponds to the k-th node of every other layer of the group.
struct RepeatGroup {
  std::vector<std::int32_t> layers;  // ascending, at least two

  bool operator==(const RepeatGroup&) const = default;
};

class Graph {
 public:
  Graph() = default;
  explicit Graph(std::string name) : name_(std::move(name)) {}

  // Appends `node` and returns its id.
  // @post error (kBadInput, "node 'NAME' field 'FIELD': ...") when the name is empty or already
  //   used, or an input is not an already added node. `pair` is not checked here (a parameter's
  //   gradient comes later); validate() checks it.
  core::Result<NodeId> add_node(Node node);

  // Capacity for `n` nodes (no semantic effect).
  void reserve(std::size_t n) {
    nodes_.reserve(n);
    by_name_.reserve(n);
  }

  [[nodiscard]] std::size_t size() const { return nodes_.size(); }
  [[nodiscard]] std::span<const Node> nodes() const { return nodes_; }
  // @pre id is a node of this graph.
  [[nodiscard]] const Node& node(NodeId id) const { return nodes_[index_of(id)]; }
  // Mutable access for passes. @pre the node's name and inputs are left unchanged (both are
  //   indexed or checked on insertion).
  Node& mutable_node(NodeId id) { return nodes_[index_of(id)]; }

  [[nodiscard]] std::optional<NodeId> find(std::string_view name) const;
  [[nodiscard]] bool contains(NodeId id) const {
    return index_of(id) >= 0 && static_cast<std::size_t>(index_of(id)) < nodes_.size();
  }

  [[nodiscard]] const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }

  [[nodiscard]] const std::vector<RepeatGroup>& repeats() const { return repeats_; }
  void set_repeats(std::vector<RepeatGroup> repeats) { repeats_ = std::move(repeats); }

  // Same name, nodes and repeats (the name index is derived).
  bool operator==(const Graph& other) const {
    return name_ == other.name_ && nodes_ == other.nodes_ && repeats_ == other.repeats_;
  }

 private:
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  std::string name_;
  std::vector<Node> nodes_;
  std::unordered_map<std::string, NodeId, NameHash, std::equal_to<>> by_name_;  // lookups only
  std::vector<RepeatGroup> repeats_;
};

// The users of every node: distinct consumer nodes in graph order (FX's `node.users`; a consumer
// reading a producer through two slots counts once).
class UserIndex {
 public:
  explicit UserIndex(const Graph& graph);
  [[nodiscard]] std::span<const NodeId> of(NodeId id) const;

 private:
  std::vector<std::int32_t> offsets_;  // size() + 1 entries
  std::vector<NodeId> users_;
};

// The inputs of `node` without repeats, in first-occurrence order. Example: mul(x, x) -> {x}.
std::vector<NodeId> distinct_inputs(const Node& node);

// The graph's output node, if it has one (validate() allows at most one).
std::optional<NodeId> find_output_node(const Graph& graph);

}  // namespace dtplan::graph
