#pragma once
// prune_by_bound(): drops strategies of a pinned selection problem that no optimal plan takes,
// before the edges between unpinned nodes are priced (docs/solver.md, "Pruning a pinned plan").
//
// A node with one allowed strategy is fixed, the others are free; the edges between free nodes
// split them into components, which interact only through fixed nodes. For a component K:
//   local(v, s)  v's unary cost at s plus its edges to fixed nodes at s (thin matrices, exact)
//   LB_K         Σ_v min_s local(v, s): the edges inside K cost >= 0
//   UB_K         the cost of the cheaper of two plans of K over each node's memory-minimal
//                strategies (smallest in every memory term), priced exactly:
//                - greedy: in node (graph) order, each node takes the strategy that adds least,
//                  its edges from earlier nodes of K priced at their choices;
//                - planned: dynamic programming in node order, F(v, s) = local(v, s) plus, per
//                  edge from an earlier member u, the cheapest seeded cost into s (a lower bound
//                  per pair from one search, PruneEdgeSource::seeded) seeded with F(u, .) along
//                  the one edge that absorbs u (u's first edge to a free node) and with 0 along
//                  the others; then from the last node back, a node no consumer absorbed takes its
//                  cheapest F and hands each absorbed producer the strategy its value came from.
//                Any plan of allowed memory-minimal strategies bounds K, however it was found.
//                The second pass takes, instead of the planned one, the first pass's plan of
//                the component where it had one: its strategies survived that pass.
// Swapping that plan into an optimal one keeps every constraint (pins allow its strategies, its
// edges are finite, no memory term grows), so an optimal plan spends at most UB_K on K.
// The forest bound: each absorbed node's edge to its absorber is a tree edge, every other edge
// of K costs at least its cheapest entry into the consumer's strategy (a lower bound per
// consumer strategy). In node order, G(v, s) = local(v, s) plus, per tree edge from u,
// min G(u) + runs * seeded(s) (seeds (G(u, .) - min G(u)) / runs), plus, per other edge, runs
// times its cheapest entry: a lower bound on v's subtree with v at s. Back from the roots,
// rest(v) bounds the rest of K from below (a root's: the other roots' smallest G; an absorbed
// node's: its absorber's rest plus the absorber's smallest G without this node's term), so a
// strategy s of v with G(v, s) + rest(v) > UB_K is in no optimal plan. Then the walk: a
// strategy s of v with local(v, s) - min local(v) > UB_K - LB_K is in no optimal plan. The pass
// walks K in node order: v first drops what exceeds the bound, then its edges from earlier
// members join local(v, .) at their cheapest surviving producer strategy (each edge once, so
// LB_K only rises) and v drops what exceeds the tighter bound. That cheapest cost needs only a
// lower bound (PruneEdgeSource::cheapest: one search from all the producer's strategies rather
// than a price per pair), which keeps LB_K a lower bound. The problem keeps its optimal
// objective (among tied plans the exact solver may return another one).
// Identical components (identical layers) are bounded once: a component whose signature (every
// input of the bound: lists, local costs, memory terms, the carried plan, edge classes and
// structure) was seen takes that component's outcome.
// Components holding a tie endpoint, or whose greedy plan is infinite or has a node with no
// memory-minimal strategy, are kept whole; so is everything when a node allows no strategy or
// an edge cannot be priced (export reports those).
//
//   PruneStats st = prune_by_bound(nodes, edges, source, allowed);
//   // allowed[v][s] == 0 now also for the strategies the bound rules out

#include <cstdint>
#include <span>
#include <vector>

#include "core/result.h"
#include "solve/problem.h"
#include "strategy/edge_cost.h"

namespace dtplan::strategy {

struct PruneNode {
  std::span<const double> unary;                     // per strategy, per step (µs)
  std::vector<std::span<const std::int64_t>> bytes;  // the node's memory terms, per strategy
  bool tied = false;                                 // a tie endpoint (constraints.h)
};

// A graph edge: consumer v reads producer u (problem node indices, u < v), `runs` per step.
struct PruneEdge {
  solve::NodeIndex u = 0;
  solve::NodeIndex v = 0;
  double runs = 1;
};

// Where prune_by_bound reads edge costs.
class PruneEdgeSource {
 public:
  virtual ~PruneEdgeSource() = default;
  // Edge e's costs per run, row-major [producer strategy of `us`][consumer strategy of `vs`]
  // (both ascending strategy indices).
  virtual core::Result<EdgeMatrix> matrix(std::size_t e, const std::vector<std::int32_t>& us,
                                          const std::vector<std::int32_t>& vs) = 0;
  // Per consumer strategy of `vs`, a lower bound on its cheapest cost per run from any producer
  // strategy of `us` (the column minima of matrix(), or less).
  virtual core::Result<EdgeMatrix> cheapest(std::size_t e, const std::vector<std::int32_t>& us,
                                            const std::vector<std::int32_t>& vs) = 0;
  // Per consumer strategy of `vs`, a lower bound on min_j (seeds[j] + cost per run from us[j]),
  // and the j it comes from (EdgeCoster::seeded_cheapest; exact values serve as well).
  virtual core::Result<std::shared_ptr<const SeededBounds>> seeded(
      std::size_t e, const std::vector<std::int32_t>& us, std::span<const double> seeds,
      const std::vector<std::int32_t>& vs) = 0;
  // Edges of one class cost the same between the same strategy lists (the identical layers'),
  // so identical components are bounded once. The default puts each edge in a class of its own.
  [[nodiscard]] virtual std::int64_t edge_class(std::size_t e) const {
    return static_cast<std::int64_t>(e);
  }
};

struct PruneStats {
  std::int64_t components = 0;  // components of free nodes
  std::int64_t bounded = 0;     // ... that had a finite bound
  std::int64_t dropped = 0;     // strategies dropped
};

// `allowed`: per node, per strategy, 1 where the pins allow it; the bound clears more.
PruneStats prune_by_bound(std::span<const PruneNode> nodes, std::span<const PruneEdge> edges,
                          PruneEdgeSource& source, std::vector<std::vector<char>>& allowed);

}  // namespace dtplan::strategy
