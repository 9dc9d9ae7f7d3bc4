#include "strategy/memory_model.h"

#include <map>
#include <set>
#include <string>

#include "core/checked.h"
#include "strategy/compute_cost.h"
#include "strategy/enumerate.h"

namespace dtplan::strategy {

namespace {

core::Result<std::int64_t> local_bytes(const graph::Shape& local, core::DType dtype,
                                       const std::string& what) {
  DTPLAN_TRY(std::int64_t numel, core::checked_product(local, what));
  return core::checked_mul(numel, core::dtype_bytes(dtype), what);
}

// Values a forward node's output is read through without a copy (views, aliases, getitem) are
// owned by the node they read: (owner, output index).
std::pair<std::int32_t, std::size_t> storage_owner(const graph::Graph& graph, std::int32_t node,
                                                   std::size_t output) {
  for (;;) {
    const graph::Node& n = graph.nodes()[static_cast<std::size_t>(node)];
    if (n.inputs.empty() || !is_free_op(n, rule_for(n))) return {node, output};
    output = producer_output_index(n);
    node = graph::index_of(n.inputs[0]);
  }
}

bool is_leaf(const graph::Node& node) { return node.op == graph::OpKind::kPlaceholder; }

}  // namespace

core::Result<MemoryTerms> memory_terms(const graph::Graph& graph,
                                       const GraphStrategies& strategies) {
  MemoryTerms out;
  const auto nodes = graph.nodes();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const graph::Node& node = nodes[i];
    if (node.role != graph::Role::kParam || node.outputs.empty()) continue;
    const OpStrategy& op = strategies.of(graph::node_id(i));
    ParameterMemory p;
    p.param = graph::node_id(i);
    const bool has_grad = node.pair != graph::kNoNode && graph.contains(node.pair) &&
                          !graph.node(node.pair).outputs.empty();
    const core::DType grad_dtype =
        has_grad ? graph.node(node.pair).outputs[0].dtype : node.outputs[0].dtype;
    const std::string what = graph::node_label(node.name) + " local bytes";
    for (const Strategy& s : op.strategies) {
      DTPLAN_TRY(std::int64_t numel, core::checked_product(s.local_output_shapes[0], what));
      DTPLAN_TRY(std::int64_t pb,
                 core::checked_mul(numel, core::dtype_bytes(node.outputs[0].dtype), what));
      std::int64_t gb = 0;
      std::int64_t ob = 0;
      if (has_grad) {
        DTPLAN_TRY(gb, core::checked_mul(numel, core::dtype_bytes(grad_dtype), what));
        DTPLAN_TRY(ob, core::checked_mul(numel, kOptimizerStates * kOptimizerStateBytes, what));
      }
      p.param_bytes.push_back(pb);
      p.grad_bytes.push_back(gb);
      p.optimizer_bytes.push_back(ob);
    }
    out.parameters.push_back(std::move(p));
  }

  // Saved values: forward non-leaf values read by backward nodes; recomputed ones are replaced by
  // the forward values they read (latest first, so a chain of recomputed values unfolds fully).
  std::set<std::pair<std::int32_t, std::size_t>> saved;  // (node, output)
  for (const graph::Node& node : nodes) {
    if (node.phase != graph::Phase::kBackward || node.op == graph::OpKind::kOutput) continue;
    const std::size_t out_index = producer_output_index(node);
    for (graph::NodeId p : node.inputs) {
      const graph::Node& producer = graph.node(p);
      if (producer.phase == graph::Phase::kForward && !is_leaf(producer)) {
        saved.insert({graph::index_of(p), out_index});
      }
    }
  }
  std::set<std::pair<std::int32_t, std::size_t>> kept;
  while (!saved.empty()) {
    const auto key = *saved.rbegin();  // latest first: inputs are earlier nodes
    saved.erase(key);
    const graph::Node& node = nodes[static_cast<std::size_t>(key.first)];
    if (node.checkpoint != graph::Checkpoint::kRecompute) {
      kept.insert(key);
      continue;
    }
    const std::size_t out_index = producer_output_index(node);
    for (graph::NodeId p : node.inputs) {
      const graph::Node& producer = graph.node(p);
      if (producer.phase == graph::Phase::kForward && !is_leaf(producer)) {
        saved.insert({graph::index_of(p), out_index});
      }
    }
  }
  std::map<std::int32_t, std::set<std::size_t>> owners;
  for (const auto& [node, output] : kept) {
    const auto [owner, owner_output] = storage_owner(graph, node, output);
    if (is_leaf(nodes[static_cast<std::size_t>(owner)])) continue;
    owners[owner].insert(owner_output);
  }
  for (const auto& [owner, outputs] : owners) {
    const graph::Node& node = nodes[static_cast<std::size_t>(owner)];
    const OpStrategy& op = strategies.of(graph::NodeId{owner});
    ActivationMemory a;
    a.node = graph::NodeId{owner};
    const std::string what = graph::node_label(node.name) + " activation bytes";
    for (const Strategy& s : op.strategies) {
      std::int64_t total = 0;
      for (std::size_t o : outputs) {
        if (o >= s.local_output_shapes.size() || o >= node.outputs.size()) continue;
        DTPLAN_TRY(std::int64_t b,
                   local_bytes(s.local_output_shapes[o], node.outputs[o].dtype, what));
        DTPLAN_TRY(total, core::checked_add(total, b, what));
      }
      a.bytes.push_back(total);
    }
    out.activations.push_back(std::move(a));
  }
  return out;
}

MemoryTotals memory_totals(const MemoryTerms& terms, std::span<const std::int32_t> choice) {
  MemoryTotals t;
  auto at = [&](graph::NodeId id) { return choice[static_cast<std::size_t>(graph::index_of(id))]; };
  for (const ParameterMemory& p : terms.parameters) {
    const auto l = static_cast<std::size_t>(at(p.param));
    t.parameter_bytes += p.param_bytes[l];
    t.gradient_bytes += p.grad_bytes[l];
    t.optimizer_bytes += p.optimizer_bytes[l];
  }
  for (const ActivationMemory& a : terms.activations) {
    t.activation_bytes += a.bytes[static_cast<std::size_t>(at(a.node))];
  }
  t.peak_bytes = t.parameter_bytes + t.gradient_bytes + t.optimizer_bytes + t.activation_bytes;
  return t;
}

}  // namespace dtplan::strategy
