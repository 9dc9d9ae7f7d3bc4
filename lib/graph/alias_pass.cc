#include "graph/alias_pass.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <vector>

namespace dtplan::graph {
namespace {

std::string unique_alias_name(const Graph& g, const Graph& out, const std::string& base) {
  std::string name = base + ".alias";
  for (int k = 1; g.find(name) || out.find(name); ++k) {
    name = base + ".alias_" + std::to_string(k);
  }
  return name;
}

}  // namespace

core::Result<Graph> insert_aliases(const Graph& g) {
  const std::size_t n = g.size();
  UserIndex users(g);
  const std::optional<NodeId> output = find_output_node(g);
  std::vector<bool> is_output_arg(n, false);
  if (output) {
    for (NodeId in : g.node(*output).inputs) is_output_arg[index_of(in)] = true;
  }
  // Producers to alias, grouped by their first user; within a user, by first argument slot.
  std::vector<std::vector<NodeId>> before(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Node& node = g.nodes()[i];
    auto u = users.of(node_id(i));
    if (node.op == OpKind::kOutput || node.op == OpKind::kAlias || node.outputs.size() != 1 ||
        u.empty() || (u.size() < 2 && !is_output_arg[i])) {
      continue;
    }
    before[index_of(u.front())].push_back(node_id(i));
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (before[i].size() < 2) continue;
    std::unordered_map<std::int32_t, std::size_t> first_slot;
    const auto& inputs = g.nodes()[i].inputs;
    for (std::size_t s = inputs.size(); s-- > 0;) first_slot[index_of(inputs[s])] = s;
    std::sort(before[i].begin(), before[i].end(), [&](NodeId a, NodeId b) {
      return first_slot[index_of(a)] < first_slot[index_of(b)];
    });
  }
  Graph out(g.name());
  std::size_t aliases = 0;
  for (const auto& b : before) aliases += b.size();
  out.reserve(n + aliases);
  std::vector<NodeId> remap(n, kNoNode), alias_of(n, kNoNode);
  for (std::size_t i = 0; i < n; ++i) {
    for (NodeId p : before[i]) {
      const Node& producer = g.node(p);
      Node alias;
      alias.name = unique_alias_name(g, out, producer.name);
      alias.op = OpKind::kAlias;
      alias.inputs = {remap[index_of(p)]};
      alias.outputs = producer.outputs;
      alias.layer = producer.layer;
      alias.phase = producer.phase;
      std::optional<std::int32_t> shared_layer;
      bool first = true, mixed = false;
      for (NodeId u : users.of(p)) {
        const Node& user = g.node(u);
        if (user.op == OpKind::kOutput) continue;
        if (first) alias.phase = user.phase;
        first = false;
        if (!shared_layer) {
          shared_layer = user.layer;
        } else if (*shared_layer != user.layer) {
          mixed = true;
        }
      }
      if (shared_layer && !mixed) alias.layer = *shared_layer;
      DTPLAN_TRY(alias_of[index_of(p)], out.add_node(std::move(alias)));
    }
    Node copy = g.nodes()[i];
    for (NodeId& in : copy.inputs) {
      in = alias_of[index_of(in)] != kNoNode ? alias_of[index_of(in)] : remap[index_of(in)];
    }
    copy.pair = kNoNode;  // fixed below, once every node has its new id
    DTPLAN_TRY(remap[i], out.add_node(std::move(copy)));
  }
  for (std::size_t i = 0; i < n; ++i) {
    NodeId old_pair = g.nodes()[i].pair;
    if (old_pair != kNoNode && g.contains(old_pair)) {
      out.mutable_node(remap[i]).pair = remap[index_of(old_pair)];
    }
  }
  // Output roles move to the alias the output node now reads.
  for (std::size_t i = 0; i < n; ++i) {
    const NodeId a = alias_of[i];
    Node& producer = out.mutable_node(remap[i]);
    if (a == kNoNode || !is_output_arg[i] ||
        (producer.role != core::OpRole::kGrad && producer.role != core::OpRole::kOutput)) {
      continue;
    }
    Node& alias = out.mutable_node(a);
    alias.role = producer.role;
    alias.pair = producer.pair;
    producer.role = core::OpRole::kNone;
    producer.pair = kNoNode;
    if (alias.pair != kNoNode && out.node(alias.pair).pair == remap[i]) {
      out.mutable_node(alias.pair).pair = a;
    }
  }
  out.set_repeats(g.repeats());
  return out;
}

}  // namespace dtplan::graph
