#pragma once
// enumerate_graph(): the strategies of every node of a graph on a mesh, in topological order, so
// that rules which follow a producer (views, casts, reductions, getitem, ...) see the producer's
// options. Enumerations are cached on (op, aten target, attributes, input and output metadata,
// and for producer-reading rules the producers' cached strategy lists and the output each slot
// reads); the mesh, profile and options are fixed per call. The identical decoder layers of a
// LLaMA3 graph therefore share one enumeration per op position: LLaMA3-8B (32 layers, ~13k
// nodes) enumerates a few hundred distinct ops on 8x8.
//
//   auto g = graph::build_llama3({});  // 8B
//   auto s = enumerate_graph(*g, std::vector<std::int64_t>{8, 8}, h100);
//   s->of(*g->find("layers.0.attention.wq.einsum")).size() == 24

#include <cstdint>
#include <span>
#include <vector>

#include "core/result.h"
#include "cost/hardware.h"
#include "graph/graph.h"
#include "strategy/enumerate.h"
#include "strategy/strategy.h"

namespace dtplan::strategy {

class GraphStrategies {
 public:
  // The strategies of node `id` (the output node: rule kOutput, none).
  // @pre id is a node of the enumerated graph.
  [[nodiscard]] const OpStrategy& of(graph::NodeId id) const {
    return distinct_[static_cast<std::size_t>(
        index_[static_cast<std::size_t>(graph::index_of(id))])];
  }
  // Which distinct enumeration node `id` shares (nodes with equal index have equal strategies).
  [[nodiscard]] std::int32_t distinct_index(graph::NodeId id) const {
    return index_[static_cast<std::size_t>(graph::index_of(id))];
  }
  [[nodiscard]] std::size_t node_count() const { return index_.size(); }
  [[nodiscard]] std::size_t distinct_count() const { return distinct_.size(); }
  // Sum of |strategies| over all nodes.
  [[nodiscard]] std::int64_t total_strategies() const;

  bool operator==(const GraphStrategies&) const = default;

 private:
  friend core::Result<GraphStrategies> enumerate_graph(const graph::Graph&,
                                                       std::span<const std::int64_t>,
                                                       const cost::HardwareProfile&,
                                                       const EnumerateOptions&);
  std::vector<OpStrategy> distinct_;
  std::vector<std::int32_t> index_;  // per node
};

// The output of its producer that every input slot of `consumer` reads: getitem's "index" for a
// getitem, 0 otherwise (every other op reads single-output producers or their first output).
std::size_t producer_output_index(const graph::Node& consumer);

// @pre the graph is topologically ordered (graph::Graph guarantees it).
// @post result.node_count() == graph.size(); error (naming the node) as enumerate_op, or
//   kBadInput when a slot reads an output its producer does not have.
core::Result<GraphStrategies> enumerate_graph(const graph::Graph& graph,
                                              std::span<const std::int64_t> mesh_sizes,
                                              const cost::HardwareProfile& profile,
                                              const EnumerateOptions& options = {});

}  // namespace dtplan::strategy
