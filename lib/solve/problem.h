#pragma once
// The labelling problem the solver sees: a domain-free pairwise cost model in the spirit of XLA's
// auto-sharding problem format (docs/reference/strategy_selection.md §1.6: AutoParallel's ILP is
// exactly min Σ_v U_v(y_v) + Σ_(u→v) B_uv(y_u, y_v) with one label per node).
//
// - Node: one decision with L labels (strategies) and a unary cost per label (compute, µs).
// - Edge: producer → consumer argument slot with an L_from × L_to matrix (redistribution, µs);
//   +inf forbids the pair. Two slots fed by one producer are two edges (every slot is tied).
// - Follower: label(node) == label_map[label(leader)] (alias/view nodes); -1 forbids that leader
//   label.
// - Pin: the node's label is one of `labels`.
// - MemoryRow: low_bytes <= Σ_terms bytes[label(node)] <= high_bytes (AutoParallel's parameter
//   memory constraint, docs/reference/strategy_selection.md §1.5 rule 9, in integer bytes).
// - RepeatGroup: blocks of nodes listed in corresponding order (position p of every block plays the
//   same role). Positions whose data and edges agree in every block are solved once
//   (docs/reference/strategy_selection.md §1.7).
//
// Example (two nodes, two labels each, one edge a→b that is free only when the labels agree):
//   Problem p;
//   p.nodes = {{"a", {1, 2}}, {"b", {3, 0}}};
//   p.edges = {{0, 1, 0, {0, 5, 5, 0}}};   // optimum: a=1, b=1, cost 2 + 0 + 0 = 2

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/result.h"
#include "solve/matrix.h"

namespace dtplan::solve {

using NodeIndex = std::int32_t;
using LabelIndex = std::int32_t;

// The cost of a forbidden label or pair.
inline constexpr double kForbidden = std::numeric_limits<double>::infinity();

struct Node {
  std::string name;
  std::vector<double> cost_us;  // one per label; +inf forbids the label
  bool operator==(const Node&) const = default;
};

struct Edge {
  NodeIndex from = 0;     // producer
  NodeIndex to = 0;       // consumer
  std::int32_t slot = 0;  // consumer argument position; (to, slot) is unique
  Matrix cost_us;         // row-major: [label(from) * labels(to) + label(to)]
  bool operator==(const Edge&) const = default;
};

struct Follower {
  NodeIndex node = 0;
  NodeIndex leader = 0;
  std::vector<LabelIndex> label_map;  // per leader label: the follower's label, or -1
  bool operator==(const Follower&) const = default;
};

struct Pin {
  NodeIndex node = 0;
  std::vector<LabelIndex> labels;  // allowed labels; several pins on one node intersect
  bool operator==(const Pin&) const = default;
};

struct MemoryTerm {
  NodeIndex node = 0;
  std::vector<std::int64_t> bytes;  // per label, >= 0
  bool operator==(const MemoryTerm&) const = default;
};

struct MemoryRow {
  std::string name;
  std::vector<MemoryTerm> terms;  // at most one term per node
  std::int64_t low_bytes = 0;
  std::int64_t high_bytes = std::numeric_limits<std::int64_t>::max();
  bool operator==(const MemoryRow&) const = default;
};

struct RepeatGroup {
  std::vector<std::vector<NodeIndex>> blocks;  // equal sizes, disjoint, corresponding order
  bool operator==(const RepeatGroup&) const = default;
};

struct Problem {
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  std::vector<Follower> followers;
  std::vector<Pin> pins;
  std::vector<MemoryRow> memory;
  std::vector<RepeatGroup> repeats;

  [[nodiscard]] std::int32_t labels(NodeIndex node) const {
    return static_cast<std::int32_t>(nodes[static_cast<std::size_t>(node)].cost_us.size());
  }
  bool operator==(const Problem&) const = default;
};

// The cost of `edge` for a pair of labels. @pre labels in range.
inline double pair_cost(const Problem& problem, const Edge& edge, LabelIndex from, LabelIndex to) {
  return edge.cost_us[static_cast<std::size_t>(from) * problem.nodes[edge.to].cost_us.size() +
                      static_cast<std::size_t>(to)];
}

// Checks sizes, indices and values: every node has >= 1 label; costs are not NaN or -inf; edge
// endpoints are distinct nodes and matrices are L_from × L_to; (to, slot) pairs are unique;
// follower maps have L_leader entries in [-1, L_node) and followers form a forest; pins name valid
// labels; memory bytes are >= 0 with low <= high and row sums that fit in int64; repeat blocks are
// disjoint, of equal size, with equal label counts at corresponding positions.
// Errors (kBadInput) name the item: "edge 3 (n1 -> n2): matrix has 5 entries, expected 6".
core::Status validate(const Problem& problem);

// Whether every memory row's bytes at `labels` (one per node) lie within [low, high].
bool meets_memory(const std::vector<MemoryRow>& rows, const std::vector<LabelIndex>& labels);

// Totals for reports: nodes, edges and Σ labels.
struct ProblemSize {
  std::int64_t nodes = 0;
  std::int64_t edges = 0;
  std::int64_t labels = 0;
  bool operator==(const ProblemSize&) const = default;
};
ProblemSize problem_size(const Problem& problem);

}  // namespace dtplan::solve
