#pragma once
// GraphBuilder: appends nodes whose outputs are inferred (shape_infer.h), under a scope that
// supplies the name prefix, layer id and phase. The first error is latched: later calls do
// nothing and finish() returns it, so builder code reads as straight-line model code.
//
//   GraphBuilder b("mlp");
//   NodeId x = b.placeholder("x", core::OpRole::kInput, {{4, 8}, DType::kBF16});
//   b.scope("layers.0", 0, Phase::kForward);
//   NodeId y = b.op(OpKind::kSum, "sum", {x}, {{"dim", std::int64_t{1}}});  // "layers.0.sum"
//   Graph g = std::move(b).finish().value();

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "graph/graph.h"

namespace dtplan::graph {

class GraphBuilder {
 public:
  explicit GraphBuilder(std::string graph_name) : graph_(std::move(graph_name)) {}

  // Capacity for `n` nodes (no semantic effect).
  void reserve(std::size_t n) { graph_.reserve(n); }

  // Names of later nodes are "<prefix>.<local>" ("<local>" for an empty prefix).
  void scope(std::string prefix, std::int32_t layer, Phase phase);

  // A placeholder named `name` exactly (not prefixed), in the current layer and phase.
  NodeId placeholder(std::string_view name, core::OpRole role, TensorMeta meta);

  // An op with inferred outputs. For ops whose inference is a prefix (SDPA), pass the complete
  // output list as `outputs`; it must start with the inferred prefix.
  NodeId op(OpKind kind, std::string_view local_name, std::vector<NodeId> inputs,
            Attributes attrs = {}, std::vector<TensorMeta> outputs = {});

  // getitem(tuple, index): the tuple's output `index`.
  NodeId getitem(NodeId tuple, std::int64_t index, std::string_view local_name);

  // The output node (named "output"), reading `values` in order.
  NodeId output(std::vector<NodeId> values);

  // The first output of `id`; an empty f32 scalar after an error.
  [[nodiscard]] const TensorMeta& meta(NodeId id) const;

  // Marks a mutual pair (param <-> grad, output <-> tangent) and the roles of both ends.
  void pair(NodeId a, core::OpRole role_a, NodeId b, core::OpRole role_b);
  void set_checkpoint(NodeId id, Checkpoint checkpoint);

  [[nodiscard]] bool ok() const { return !error_.has_value(); }
  [[nodiscard]] const Graph& graph() const { return graph_; }

  // The graph, or the first error.
  core::Result<Graph> finish() &&;

 private:
  NodeId add(Node node);
  std::string full_name(std::string_view local) const;

  Graph graph_;
  std::optional<core::Error> error_;
  std::string prefix_;
  std::int32_t layer_ = -1;
  Phase phase_ = Phase::kForward;
};

}  // namespace dtplan::graph
