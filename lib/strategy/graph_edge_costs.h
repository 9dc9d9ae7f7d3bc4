#pragma once
// GraphEdgeCosts: the costs of one graph edge (a producer's output into a consumer's input slot)
// between lists of the two ends' strategies, priced by an EdgeCoster and memoised there under a
// key naming both enumerations and both lists, so that identical layers share them: the exact
// matrix, per consumer strategy a lower bound on its cheapest entry, or the cheapest seeded
// entries (what export and pruning by bound read; docs/solver.md).
//
//   GraphEdgeCosts costs{graph, strategies, coster};
//   auto m = costs.matrix(p, c, slot, {}, {}, EdgeCost::kExact);  // every strategy of both ends

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "core/result.h"
#include "graph/graph.h"
#include "strategy/edge_cost.h"
#include "strategy/graph_strategies.h"

namespace dtplan::strategy {

// What GraphEdgeCosts::matrix gives: the matrix, or per consumer strategy a lower bound on its
// cheapest entry (EdgeCoster::cheapest).
enum class EdgeCost : std::uint8_t { kExact, kCheapestBound };

// Keeps references: the graph, strategies and coster must outlive it.
class GraphEdgeCosts {
 public:
  GraphEdgeCosts(const graph::Graph& graph, const GraphStrategies& strategies, EdgeCoster& coster)
      : graph_(graph), strategies_(strategies), coster_(coster) {}

  // The edge from p's output into `slot` of consumer c over the producer strategies `us` and
  // the consumer strategies `vs` (ascending strategy indices; empty: all of them).
  // @post errors carry the consumer's name and slot.
  core::Result<EdgeMatrix> matrix(graph::NodeId p, graph::NodeId c, std::int32_t slot,
                                  const std::vector<std::int32_t>& us,
                                  const std::vector<std::int32_t>& vs, EdgeCost what);
  // The edge's class: edges of one class have the same costs between the same strategy lists
  // (the memo key over every strategy of both ends).
  [[nodiscard]] EdgeMatrixKey edge_class(graph::NodeId p, graph::NodeId c, std::int32_t slot) const;
  // EdgeCoster::seeded_cheapest over that edge (seeds: one per entry of `us`).
  core::Result<std::shared_ptr<const SeededBounds>> seeded(graph::NodeId p, graph::NodeId c,
                                                           std::int32_t slot,
                                                           const std::vector<std::int32_t>& us,
                                                           std::span<const double> seeds,
                                                           const std::vector<std::int32_t>& vs);

 private:
  EdgeMatrixKey key(graph::NodeId p, graph::NodeId c, std::int32_t slot,
                    const std::vector<std::int32_t>& us, const std::vector<std::int32_t>& vs);
  // The producer's output placements at `us` and the consumer's input placements at `vs`.
  std::pair<std::vector<Placements>, std::vector<Placements>> ends(
      graph::NodeId p, graph::NodeId c, std::int32_t slot, const std::vector<std::int32_t>& us,
      const std::vector<std::int32_t>& vs) const;
  // `error` prefixed with the consumer's name and slot.
  [[nodiscard]] core::Error in_context(const core::Error& error, graph::NodeId c,
                                       std::int32_t slot) const;
  // The tensor the edge carries.
  [[nodiscard]] const graph::TensorMeta& tensor(graph::NodeId p, graph::NodeId c) const;

  const graph::Graph& graph_;
  const GraphStrategies& strategies_;
  EdgeCoster& coster_;
};

}  // namespace dtplan::strategy
