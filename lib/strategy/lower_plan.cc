#include "strategy/lower_plan.h"

#include <set>

#include "plan/plan_summary.h"
#include "strategy/step_schedule.h"

namespace dtplan::strategy {

namespace {

// The layer count of a graph: distinct layer ids >= 0.
std::int32_t layer_count(const graph::Graph& graph) {
  std::set<std::int32_t> layers;
  for (const graph::Node& n : graph.nodes()) {
    if (n.layer >= 0) layers.insert(n.layer);
  }
  return static_cast<std::int32_t>(layers.size());
}

}  // namespace

core::Result<plan::Plan> lower_plan(const LowerInput& input, EdgeCoster& coster) {
  const graph::Graph& graph = input.graph;
  plan::Plan out;
  out.model = graph.name();
  out.layers = layer_count(graph);
  out.training = input.training;
  const std::vector<plan::OpSchedule> schedules = op_schedules(graph, input.training);
  out.mesh = redist::describe_mesh(coster.planner().mesh());
  std::vector<std::int32_t> op_index(graph.size(), -1);
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const std::int32_t label = input.choice[i];
    if (label < 0) continue;
    const graph::Node& node = graph.nodes()[i];
    const OpStrategy& op = input.strategies.of(graph::node_id(i));
    const Strategy& s = op.strategies[static_cast<std::size_t>(label)];
    plan::PlanOp p;
    p.name = node.name;
    p.op = node.op == graph::OpKind::kOther ? node.target : std::string(graph::op_name(node.op));
    p.phase = node.phase == graph::Phase::kForward ? plan::Phase::kForward : plan::Phase::kBackward;
    p.layer = node.layer;
    p.role = node.role;
    for (graph::NodeId in : node.inputs) {
      const std::int32_t producer = op_index[static_cast<std::size_t>(graph::index_of(in))];
      if (producer < 0) {
        return core::Error::internal(graph::node_label(node.name) + ": producer '" +
                                     graph.node(in).name + "' has no chosen strategy");
      }
      p.inputs.push_back(producer);
    }
    if (!node.outputs.empty()) {
      p.shape = node.outputs[0].shape;
      p.dtype = node.outputs[0].dtype;
    }
    p.placements = s.outputs.empty() ? Placements(coster.mesh_sizes().size()) : s.outputs[0];
    p.strategy = format_strategy(s);
    p.options = static_cast<std::int32_t>(op.size());
    p.compute_us = s.compute_us;
    p.schedule = schedules[i];
    out.strategies += static_cast<std::int64_t>(op.size());
    op_index[i] = static_cast<std::int32_t>(out.ops.size());
    out.ops.push_back(std::move(p));

    const std::size_t out_index = producer_output_index(node);
    for (std::size_t slot = 0; slot < node.inputs.size(); ++slot) {
      const graph::NodeId pid = node.inputs[slot];
      const graph::Node& producer = graph.node(pid);
      const std::int32_t plabel = input.choice[static_cast<std::size_t>(graph::index_of(pid))];
      const Strategy& ps = input.strategies.of(pid).strategies[static_cast<std::size_t>(plabel)];
      const Placements& src = ps.outputs[out_index];
      const Placements& dst = s.inputs[slot];
      if (src == dst) continue;
      auto planned = coster.plan(producer.outputs[out_index], src, dst);
      if (!planned.ok()) {
        return planned.error().with_context(graph::node_label(node.name) + " input " +
                                            std::to_string(slot));
      }
      out.redistributions.push_back({op_index[i], static_cast<std::int32_t>(slot),
                                     op_index[static_cast<std::size_t>(graph::index_of(pid))],
                                     **planned});
    }
  }
  plan::summarize(out);
  const MemoryTotals m = memory_totals(input.memory, input.choice);
  out.memory.parameter_bytes = m.parameter_bytes;
  out.memory.gradient_bytes = m.gradient_bytes;
  out.memory.optimizer_bytes = m.optimizer_bytes;
  out.memory.activation_bytes = m.activation_bytes;
  out.memory.peak_bytes_per_rank = m.peak_bytes;
  out.memory.limit_bytes = input.memory_limit_bytes.value_or(0);
  return out;
}

}  // namespace dtplan::strategy
