#include "strategy/memory_model.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "core/checked.h"
#include "graph/recompute.h"
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

// The unsharded fp32 gradient each returned gradient accumulates across microbatches when only
// the last one reduces: its batch reduction's output (graph::gradient_roots: a linear's
// grad-weight einsum, a norm's sum, the embedding's backward) at its local element count, 4
// bytes each. Its placement is the gradient's before the reduction (Partial over the
// data-parallel dims keeps the full size).
core::Result<std::vector<ActivationMemory>> accumulator_terms(const graph::Graph& graph,
                                                              const GraphStrategies& strategies) {
  std::vector<ActivationMemory> out;
  for (graph::NodeId root : graph::gradient_roots(graph)) {
    ActivationMemory a;
    a.node = root;
    const std::string what = graph::node_label(graph.node(root).name) + " accumulated bytes";
    for (const Strategy& s : strategies.of(root).strategies) {
      DTPLAN_TRY(std::int64_t b, local_bytes(s.local_output_shapes[0], core::DType::kF32, what));
      a.bytes.push_back(b);
    }
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace

core::Result<MemoryTerms> memory_terms(const graph::Graph& graph, const GraphStrategies& strategies,
                                       const core::TrainingOptions& training) {
  MemoryTerms out;
  const auto nodes = graph.nodes();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const graph::Node& node = nodes[i];
    if (node.role != core::OpRole::kParam || node.outputs.empty()) continue;
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

  // Saved values: the storage owners of the forward non-leaf values that a backward node or a
  // recomputed node reads and that are not recomputed themselves (graph/recompute.h).
  const std::vector<char> recomputed = graph::recomputed_nodes(graph);
  std::map<std::int32_t, std::set<std::size_t>> owners;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const graph::Node& node = nodes[i];
    const bool reader = recomputed[i] != 0 || (node.phase == graph::Phase::kBackward &&
                                               node.op != graph::OpKind::kOutput);
    if (!reader) continue;
    for (graph::NodeId p : node.inputs) {
      const graph::Node& producer = graph.node(p);
      if (producer.phase != graph::Phase::kForward || is_leaf(producer) ||
          recomputed[static_cast<std::size_t>(graph::index_of(p))] != 0) {
        continue;
      }
      const auto owner = storage_owner(graph, graph::index_of(p), producer_output_index(node));
      if (!is_leaf(nodes[static_cast<std::size_t>(owner.first)])) {
        owners[owner.first].insert(owner.second);
      }
    }
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
  if (training.grad_accum > 1 && training.grad_sync == core::GradSync::kLastMicrobatch) {
    DTPLAN_TRY(out.accumulators, accumulator_terms(graph, strategies));
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
  for (const ActivationMemory& a : terms.accumulators) {
    t.gradient_bytes += a.bytes[static_cast<std::size_t>(at(a.node))];
  }
  t.peak_bytes = t.parameter_bytes + t.gradient_bytes + t.optimizer_bytes + t.activation_bytes;
  return t;
}

}  // namespace dtplan::strategy
