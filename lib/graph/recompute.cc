#include "graph/recompute.h"

#include <algorithm>

namespace dtplan::graph {

namespace {

// A node's checkpoint tag; an alias (alias_pass.h, inserted after the builder tagged the
// nodes) carries its producer's.
Checkpoint tag_of(const Graph& graph, const Node& node) {
  const Node* n = &node;
  while (n->op == OpKind::kAlias && !n->inputs.empty()) n = &graph.node(n->inputs[0]);
  return n->checkpoint;
}

// A returned gradient (node `grad`, role kGrad) back to its batch reduction: the ops between
// only change its layout or dtype (alias, cast, permute, view); the last node is the reduction
// (a grad-weight einsum, a norm's sum, the embedding's backward).
std::vector<NodeId> gradient_chain(const Graph& graph, std::size_t grad) {
  auto layout_only = [](OpKind op) {
    return op == OpKind::kAlias || op == OpKind::kDtypeCast || op == OpKind::kToCopy ||
           op == OpKind::kPermute || op == OpKind::kTranspose || op == OpKind::kView ||
           op == OpKind::kReshape || op == OpKind::kUnsafeView || op == OpKind::kClone;
  };
  std::vector<NodeId> chain = {node_id(grad)};
  const Node* cur = &graph.nodes()[grad];
  while (layout_only(cur->op) && cur->inputs.size() == 1) {
    const Node& in = graph.node(cur->inputs[0]);
    if (in.phase != Phase::kBackward || in.op == OpKind::kPlaceholder) break;
    chain.push_back(cur->inputs[0]);
    cur = &in;
  }
  return chain;
}

}  // namespace

std::vector<char> recomputed_nodes(const Graph& graph) {
  const auto nodes = graph.nodes();
  std::vector<char> recomputed(nodes.size(), 0);
  // Backward readers first, then each recomputed node's own inputs: inputs are earlier nodes,
  // so one pass from the last node down reaches every chain.
  std::vector<char> needed(nodes.size(), 0);
  for (const Node& node : nodes) {
    if (node.phase != Phase::kBackward || node.op == OpKind::kOutput) continue;
    for (NodeId p : node.inputs) needed[static_cast<std::size_t>(index_of(p))] = 1;
  }
  for (std::size_t i = nodes.size(); i-- > 0;) {
    const Node& node = nodes[i];
    if (needed[i] == 0 || node.phase != Phase::kForward || node.op == OpKind::kPlaceholder ||
        tag_of(graph, node) != Checkpoint::kRecompute) {
      continue;
    }
    recomputed[i] = 1;
    for (NodeId p : node.inputs) needed[static_cast<std::size_t>(index_of(p))] = 1;
  }
  return recomputed;
}

std::vector<NodeId> gradient_roots(const Graph& graph) {
  std::vector<NodeId> roots;
  for (std::size_t i = 0; i < graph.size(); ++i) {
    if (graph.nodes()[i].role == core::OpRole::kGrad)
      roots.push_back(gradient_chain(graph, i).back());
  }
  std::sort(roots.begin(), roots.end());
  return roots;
}

std::vector<char> gradient_nodes(const Graph& graph) {
  std::vector<char> gradient(graph.size(), 0);
  for (std::size_t i = 0; i < graph.size(); ++i) {
    if (graph.nodes()[i].role != core::OpRole::kGrad) continue;
    for (NodeId id : gradient_chain(graph, i)) gradient[static_cast<std::size_t>(index_of(id))] = 1;
  }
  return gradient;
}

}  // namespace dtplan::graph
