#include "graph/graph_builder.h"

#include <algorithm>

#include "graph/shape_infer.h"

namespace dtplan::graph {

void GraphBuilder::scope(std::string prefix, std::int32_t layer, Phase phase) {
  prefix_ = std::move(prefix);
  layer_ = layer;
  phase_ = phase;
}

std::string GraphBuilder::full_name(std::string_view local) const {
  if (prefix_.empty()) return std::string(local);
  return prefix_ + "." + std::string(local);
}

NodeId GraphBuilder::add(Node node) {
  if (error_) return kNoNode;
  auto id = graph_.add_node(std::move(node));
  if (!id.ok()) {
    error_ = std::move(id).error();
    return kNoNode;
  }
  return *id;
}

NodeId GraphBuilder::placeholder(std::string_view name, core::OpRole role, TensorMeta meta) {
  Node node;
  node.name = std::string(name);
  node.op = OpKind::kPlaceholder;
  node.outputs = {std::move(meta)};
  node.phase = phase_;
  node.layer = layer_;
  node.role = role;
  return add(std::move(node));
}

NodeId GraphBuilder::op(OpKind kind, std::string_view local_name, std::vector<NodeId> inputs,
                        Attributes attrs, std::vector<TensorMeta> outputs) {
  if (error_) return kNoNode;
  Node node;
  node.name = full_name(local_name);
  node.op = kind;
  node.inputs = std::move(inputs);
  node.attrs = std::move(attrs);
  node.phase = phase_;
  node.layer = layer_;
  std::vector<const TensorMeta*> in;
  for (NodeId id : node.inputs) in.push_back(&meta(id));
  auto inferred = infer_outputs(node, in);
  if (!inferred.ok()) {
    core::Error e = std::move(inferred).error();
    e.message = node_label(node.name) + " " + e.message;
    error_ = std::move(e);
    return kNoNode;
  }
  if (outputs.empty()) {
    node.outputs = std::move(inferred->outputs);
  } else {
    const auto& want = inferred->outputs;
    if (outputs.size() < want.size() || !std::equal(want.begin(), want.end(), outputs.begin())) {
      error_ = core::Error::internal(node_label(node.name) +
                                     ": explicit outputs disagree with the inferred ones");
      return kNoNode;
    }
    node.outputs = std::move(outputs);
  }
  return add(std::move(node));
}

NodeId GraphBuilder::getitem(NodeId tuple, std::int64_t index, std::string_view local_name) {
  if (error_ || !graph_.contains(tuple)) return kNoNode;
  const Node& producer = graph_.node(tuple);
  if (index < 0 || index >= static_cast<std::int64_t>(producer.outputs.size())) {
    error_ = core::Error::internal("getitem " + std::to_string(index) + " of '" + producer.name +
                                   "' is out of range");
    return kNoNode;
  }
  Node node;
  node.name = full_name(local_name);
  node.op = OpKind::kGetitem;
  node.inputs = {tuple};
  node.outputs = {producer.outputs[static_cast<std::size_t>(index)]};
  node.attrs.set("index", index);
  node.phase = phase_;
  node.layer = layer_;
  return add(std::move(node));
}

NodeId GraphBuilder::output(std::vector<NodeId> values) {
  Node node;
  node.name = "output";
  node.op = OpKind::kOutput;
  node.inputs = std::move(values);
  node.phase = phase_;
  node.layer = layer_;
  return add(std::move(node));
}

const TensorMeta& GraphBuilder::meta(NodeId id) const {
  static const TensorMeta kEmpty{};
  if (error_ || !graph_.contains(id) || graph_.node(id).outputs.empty()) return kEmpty;
  return graph_.node(id).outputs[0];
}

void GraphBuilder::pair(NodeId a, core::OpRole role_a, NodeId b, core::OpRole role_b) {
  if (error_ || !graph_.contains(a) || !graph_.contains(b)) return;
  Node& na = graph_.mutable_node(a);
  Node& nb = graph_.mutable_node(b);
  na.role = role_a;
  na.pair = b;
  nb.role = role_b;
  nb.pair = a;
}

void GraphBuilder::set_checkpoint(NodeId id, Checkpoint checkpoint) {
  if (error_ || !graph_.contains(id)) return;
  graph_.mutable_node(id).checkpoint = checkpoint;
}

core::Result<Graph> GraphBuilder::finish() && {
  if (error_) return std::move(*error_);
  return std::move(graph_);
}

}  // namespace dtplan::graph
