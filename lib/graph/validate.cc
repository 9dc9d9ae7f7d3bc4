#include "graph/validate.h"

#include <vector>

#include "graph/layer_groups.h"
#include "graph/shape_infer.h"

namespace dtplan::graph {
namespace {

using core::Error;
using core::Status;

// "node 'x' " + message (messages from attribute getters and shape inference start with the
// field: "field 'attrs'.'dim': ...").
Error at_node(const Node& node, Error error) {
  error.message = node_label(node.name) + " " + error.message;
  return error;
}

std::string field(const Node& node, std::string_view name) {
  return node_label(node.name) + " field '" + std::string(name) + "'";
}

std::string slot_field(const Node& node, std::string_view name, std::size_t slot) {
  return field(node, name) + "[" + std::to_string(slot) + "]";
}

std::string range_text(int lo, int hi) {
  if (hi < 0) return "at least " + std::to_string(lo);
  if (lo == hi) return "exactly " + std::to_string(lo);
  return std::to_string(lo) + " to " + std::to_string(hi);
}

bool in_range(std::size_t n, int lo, int hi) {
  return static_cast<int>(n) >= lo && (hi < 0 || static_cast<int>(n) <= hi);
}

Status check_counts(const Node& node) {
  const OpInfo& info = op_info(node.op);
  if (!in_range(node.inputs.size(), info.min_inputs, info.max_inputs)) {
    return Error::bad_input(field(node, "inputs") + ": " + std::string(info.name) + " takes " +
                            range_text(info.min_inputs, info.max_inputs) + " tensor inputs, got " +
                            std::to_string(node.inputs.size()));
  }
  if (!in_range(node.outputs.size(), info.min_outputs, info.max_outputs)) {
    return Error::bad_input(field(node, "outputs") + ": " + std::string(info.name) + " produces " +
                            range_text(info.min_outputs, info.max_outputs) + " tensors, got " +
                            std::to_string(node.outputs.size()));
  }
  if ((node.op == OpKind::kOther) == node.target.empty()) {
    return Error::bad_input(field(node, "target") + (node.op == OpKind::kOther
                                                         ? ": op 'other' needs the aten target"
                                                         : ": only op 'other' has a target"));
  }
  return {};
}

Status check_outputs_well_formed(const Node& node) {
  for (std::size_t i = 0; i < node.outputs.size(); ++i) {
    for (std::int64_t s : node.outputs[i].shape) {
      if (s < 0) {
        return Error::bad_input(slot_field(node, "outputs", i) + ": negative size in " +
                                format_shape(node.outputs[i].shape));
      }
    }
    auto n = bytes(node.outputs[i], slot_field(node, "outputs", i));
    if (!n.ok()) return std::move(n).error();
  }
  return {};
}

Status check_attrs(const Node& node) {
  for (const auto& [name, value] : node.attrs.entries()) {
    auto type = known_attr_type(name);
    if (type && !attr_value_matches(value, *type)) {
      return Error::bad_input(node_label(node.name) + " " + attr_field(name) + ": expected " +
                              std::string(attr_type_name(*type)) + ", got " +
                              std::string(attr_value_type_name(value)) + " " +
                              format_attr_value(value));
    }
  }
  return {};
}

Status check_inputs(const Graph& graph, const Node& node) {
  for (std::size_t s = 0; s < node.inputs.size(); ++s) {
    const Node& producer = graph.node(node.inputs[s]);
    if (producer.outputs.empty()) {
      return Error::bad_input(slot_field(node, "inputs", s) + ": '" + producer.name +
                              "' produces no tensor");
    }
    if (producer.outputs.size() != 1 && node.op != OpKind::kGetitem) {
      return Error::bad_input(slot_field(node, "inputs", s) + ": '" + producer.name +
                              "' produces " + std::to_string(producer.outputs.size()) +
                              " tensors; read one with getitem");
    }
  }
  return {};
}

std::string meta_list(const std::vector<TensorMeta>& metas) {
  std::string out;
  for (const TensorMeta& m : metas) out += (out.empty() ? "" : ", ") + format_meta(m);
  return out;
}

Status check_inferred(const Graph& graph, const Node& node) {
  if (node.op == OpKind::kGetitem) {
    const Node& tuple = graph.node(node.inputs[0]);
    auto index = node.attrs.get_int("index");
    if (!index.ok()) return at_node(node, index.error());
    if (*index < 0 || *index >= static_cast<std::int64_t>(tuple.outputs.size())) {
      return Error::bad_input(node_label(node.name) + " " + attr_field("index") + ": " +
                              std::to_string(*index) + " is out of range for '" + tuple.name +
                              "' with " + std::to_string(tuple.outputs.size()) + " outputs");
    }
    const TensorMeta& want = tuple.outputs[static_cast<std::size_t>(*index)];
    if (node.outputs[0] != want) {
      return Error::bad_input(slot_field(node, "outputs", 0) + ": declared " +
                              format_meta(node.outputs[0]) + ", but '" + tuple.name + "' output " +
                              std::to_string(*index) + " is " + format_meta(want));
    }
    return {};
  }
  std::vector<const TensorMeta*> in;
  in.reserve(node.inputs.size());
  for (NodeId id : node.inputs) in.push_back(&graph.node(id).outputs[0]);
  auto inferred = infer_outputs(node, in);
  if (!inferred.ok()) return at_node(node, inferred.error());
  const auto& want = inferred->outputs;
  if (inferred->exact ? node.outputs.size() != want.size() : node.outputs.size() < want.size()) {
    return Error::bad_input(field(node, "outputs") + ": declared " +
                            std::to_string(node.outputs.size()) + " outputs, inferred " +
                            (inferred->exact ? "" : "at least ") + std::to_string(want.size()) +
                            " (" + meta_list(want) + ")");
  }
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (node.outputs[i] != want[i]) {
      return Error::bad_input(slot_field(node, "outputs", i) + ": declared " +
                              format_meta(node.outputs[i]) + ", inferred " + format_meta(want[i]) +
                              " from the inputs");
    }
  }
  return {};
}

// The role a node's pair must have.
bool pair_roles_match(core::OpRole a, core::OpRole b) {
  auto one_way = [](core::OpRole x, core::OpRole y) {
    return (x == core::OpRole::kParam && y == core::OpRole::kGrad) ||
           (x == core::OpRole::kInput && y == core::OpRole::kGrad) ||
           (x == core::OpRole::kOutput && y == core::OpRole::kTangent);
  };
  return one_way(a, b) || one_way(b, a);
}

Status check_role(const Graph& graph, NodeId id) {
  const Node& node = graph.node(id);
  const bool placeholder = node.op == OpKind::kPlaceholder;
  if (placeholder != core::is_placeholder_role(node.role)) {
    return Error::bad_input(field(node, "role") + ": " +
                            (placeholder
                                 ? "a placeholder needs role param, buffer, input or "
                                   "tangent"
                                 : "role '" + std::string(core::graph_role_name(node.role)) +
                                       "' is for placeholders only"));
  }
  if (node.op == OpKind::kOutput && node.role != core::OpRole::kNone) {
    return Error::bad_input(field(node, "role") + ": the output node has no role");
  }
  if (node.pair == kNoNode) {
    if (node.role == core::OpRole::kGrad) {
      return Error::bad_input(field(node, "pair") + ": a grad names its param or input");
    }
    return {};
  }
  if (!graph.contains(node.pair)) {
    return Error::bad_input(field(node, "pair") + ": node id " +
                            std::to_string(index_of(node.pair)) + " does not exist");
  }
  const Node& partner = graph.node(node.pair);
  if (partner.pair != id) {
    return Error::bad_input(field(node, "pair") + ": '" + partner.name +
                            "' does not name this node back");
  }
  if (!pair_roles_match(node.role, partner.role)) {
    return Error::bad_input(field(node, "pair") + ": a " +
                            std::string(core::graph_role_name(node.role)) + " cannot pair with a " +
                            std::string(core::graph_role_name(partner.role)) +
                            " (pairs are param-grad, input-grad, output-tangent)");
  }
  return {};
}

// The node-level checks for one node (all but the graph-wide ones: single output node, repeats).
Status validate_node(const Graph& graph, NodeId id) {
  const Node& node = graph.node(id);
  DTPLAN_CHECK(check_counts(node));
  DTPLAN_CHECK(check_outputs_well_formed(node));
  DTPLAN_CHECK(check_attrs(node));
  DTPLAN_CHECK(check_inputs(graph, node));
  DTPLAN_CHECK(check_inferred(graph, node));
  DTPLAN_CHECK(check_role(graph, id));
  if (node.layer < -1) {
    return Error::bad_input(field(node, "layer") + ": must be >= -1, got " +
                            std::to_string(node.layer));
  }
  return {};
}

}  // namespace

Status validate(const Graph& graph) {
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const Node& node = graph.nodes()[i];
    if (node.op == OpKind::kOutput && i + 1 != graph.size()) {
      return Error::bad_input(field(node, "op") + ": the output node must be the last node");
    }
    DTPLAN_CHECK(validate_node(graph, node_id(i)));
  }
  return check_repeats(graph, graph.repeats());
}

}  // namespace dtplan::graph
