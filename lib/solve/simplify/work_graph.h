#pragma once
// Internal to lib/solve: the mutable graph simplify() reduces.
//
// Nodes keep their original labels (ascending) with the current unary costs and bytes; edges keep
// dense matrices over the current labels of their endpoints (from-major). Every change goes
// through the methods below so that matrices, bytes and incidence lists stay in step.
//
// Example: restrict(v, {1, 0, 1}) on a 3-label node keeps labels 0 and 2 and drops the middle
// row (or column) of every matrix of v's edges.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "solve/problem.h"
#include "solve/simplify.h"

namespace dtplan::solve::detail {

struct WorkNode {
  std::string name;
  std::vector<LabelIndex> labels;                // original labels, ascending
  std::vector<double> cost;                      // per current label
  std::vector<std::vector<std::int64_t>> bytes;  // per memory row: per label, or empty
  std::vector<std::int32_t> edges;               // alive incident edges
  bool alive = true;
  std::int32_t group = -1;  // repeat group, block and position, or -1
  std::int32_t block = -1;
  std::int32_t position = -1;

  [[nodiscard]] std::int32_t size() const { return static_cast<std::int32_t>(labels.size()); }
};

struct WorkEdge {
  NodeIndex from = 0;
  NodeIndex to = 0;
  Matrix cost;  // [label(from) * size(to) + label(to)]; shared with the problem until changed
  bool alive = true;
};

struct WorkRow {
  std::string name;
  std::int64_t low = 0;
  std::int64_t high = 0;
  bool alive = true;
};

class WorkGraph {
 public:
  explicit WorkGraph(const Problem& problem);

  std::vector<WorkNode> nodes;
  std::vector<WorkEdge> edges;
  std::vector<WorkRow> rows;
  std::vector<RepeatGroup> groups;  // original node ids
  std::vector<LiftStep> steps;
  SimplifyStats stats;
  // Bumped whenever a node's labels, costs or incident edges change (passes skip unchanged nodes).
  std::vector<std::uint64_t> version;

  void touch(NodeIndex v) { version[v] = ++clock_; }

  // Keeps labels with keep[l] != 0. @post false when v has no label left. Edges sharing a
  // matrix that lose the same rows (or columns) share the result too (see forget_restricted()).
  bool restrict(NodeIndex v, const std::vector<char>& keep);
  // Drops what restrict() remembers (the matrices it keeps alive to share results).
  void forget_restricted() { restricted_.clear(); }
  // Cost of edge e with v at label lv and the other endpoint at lo.
  [[nodiscard]] double entry(const WorkEdge& e, NodeIndex v, std::int32_t lv,
                             std::int32_t lo) const {
    const auto cols = static_cast<std::size_t>(nodes[e.to].size());
    return e.from == v ? e.cost[static_cast<std::size_t>(lv) * cols + static_cast<std::size_t>(lo)]
                       : e.cost[static_cast<std::size_t>(lo) * cols + static_cast<std::size_t>(lv)];
  }
  [[nodiscard]] NodeIndex other(const WorkEdge& e, NodeIndex v) const {
    return e.from == v ? e.to : e.from;
  }
  // Adds a matrix over (from, to), summed into an existing edge between them if there is one.
  void add_edge(NodeIndex from, NodeIndex to, Matrix cost);
  void kill_edge(std::int32_t e);
  void kill_node(NodeIndex v);
  // Distinct alive neighbours (parallel edges are merged as they appear, so one edge each).
  [[nodiscard]] std::vector<NodeIndex> neighbours(NodeIndex v) const;
  [[nodiscard]] bool has_memory(NodeIndex v) const;
  // Nodes sharing v's repeat position (v itself included), or just v outside repeat groups.
  [[nodiscard]] std::vector<NodeIndex> class_of(NodeIndex v) const;
  // True when v (in a repeat block) has the same labels, costs, bytes and edges, position for
  // position, as rep in block 0: reductions computed for rep hold for v.
  [[nodiscard]] bool same_as(NodeIndex v, NodeIndex rep) const;

 private:
  [[nodiscard]] std::int32_t find_edge(NodeIndex u, NodeIndex w) const;
  std::uint64_t clock_ = 0;
  // restrict()'s results: per source matrix storage and rows/columns kept.
  struct Restricted {
    Matrix source;  // keeps the storage (and so its address) alive
    bool rows = false;
    std::int32_t row_count = 0;
    std::vector<char> keep;
    Matrix result;
  };
  std::unordered_map<const double*, std::vector<Restricted>> restricted_;
};

}  // namespace dtplan::solve::detail
