#pragma once
// simplify(): an equivalent smaller problem, and the map that lifts its solutions back.
//
// Reductions, repeated to a fixed point (each keeps the optimum and the optimal cost):
// - pins: labels outside a pin are removed;
// - followers: merged into their leader (the leader absorbs the follower's unary, memory and
//   edges through the label map; leader labels mapping to -1 go), or, where merging would break a
//   repeated block, turned into an edge that is 0 on the map and +inf elsewhere;
// - parallel edges between two nodes are summed into one;
// - arc consistency: a label with +inf unary cost, or whose row in some edge is all +inf, goes;
// - memory: rows no labelling can violate are dropped; labels whose bytes cannot fit the row's
//   bounds whatever the other nodes choose go; an unreachable row is an error
//   ("infeasible: memory budget X below minimum Y (memory row 'params', bytes)");
// - dominated and duplicate labels: label a goes when a label b is no worse in unary cost, bytes
//   (in the direction the row can bind) and every edge entry; of identical labels the lowest index
//   stays (checked on nodes of up to 2048 labels: the test is quadratic);
// - chains: a node outside memory rows and repeat blocks with one neighbour is folded into that
//   neighbour's unary; with two neighbours u, w it becomes an edge u -> w with
//   M[y][z] = min_x A[y][x] + U[x] + B[x][z] (ties: lowest x).
// In repeat blocks, a label is removed only where it is removable in every block (pins removable in
// some blocks only become +inf costs), so blocks stay alike and the solver can still share them.
// Reduced nodes keep the original order; reduced edges have renumbered slots.
//
// Example: a -> b -> c with a and c in a memory row (so they stay): b is folded into an edge
// a -> c whose matrix is min over b of the two old edges plus b's unary; lift() sets b to that
// minimizing label for the labels of a and c.

#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "core/result.h"
#include "solve/problem.h"

namespace dtplan::solve {

struct LiftStep {
  enum class Kind : std::uint8_t { kFollower, kFold };
  Kind kind = Kind::kFold;
  NodeIndex node = 0;                // the removed node (original index)
  NodeIndex a = -1;                  // leader (kFollower) or first neighbour (kFold)
  NodeIndex b = -1;                  // second neighbour (kFold with two neighbours) or -1
  std::vector<LabelIndex> domain_a;  // kFold: a's original labels when folded (ascending)
  std::vector<LabelIndex> domain_b;
  std::vector<LabelIndex> table;  // kFollower: label map by a's original label; kFold:
                                  // node's original label by [index in domain_a][in domain_b]
  bool operator==(const LiftStep&) const = default;
};

struct Remap {
  std::int32_t original_nodes = 0;
  std::vector<NodeIndex> original_node;                  // per reduced node
  std::vector<std::vector<LabelIndex>> original_labels;  // per reduced node, per reduced label
  std::vector<LiftStep> steps;                           // in removal order
  bool operator==(const Remap&) const = default;
};

struct SimplifyStats {
  std::int64_t followers_merged = 0;
  std::int64_t followers_as_edges = 0;
  std::int64_t parallel_edges_merged = 0;
  std::int64_t labels_pinned = 0;        // removed by pins (or made +inf in some blocks)
  std::int64_t labels_inconsistent = 0;  // arc consistency
  std::int64_t labels_memory = 0;        // cannot fit a memory row
  std::int64_t labels_dominated = 0;     // dominated or duplicate
  std::int64_t memory_rows_dropped = 0;
  std::int64_t nodes_folded = 0;
  bool operator==(const SimplifyStats&) const = default;
};

struct Simplified {
  Problem problem;  // no pins, no followers; valid
  Remap remap;
  SimplifyStats stats;
};

// @post error kBadInput when validate() fails; kUnsupported when the problem is infeasible
// (a node loses every label, or a memory row cannot be met), naming the node or row.
// Pins and followers are always folded in; the reductions repeat until none applies or, read
// between rounds, `deadline` passes (the result is then less reduced, and as exact).
core::Result<Simplified> simplify(
    const Problem& problem,
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());

// Lifts a labelling of the reduced problem to the original problem.
// @post error (kBadInput) when `reduced` does not fit the remap.
core::Result<std::vector<LabelIndex>> lift(const Remap& remap, std::span<const LabelIndex> reduced);

}  // namespace dtplan::solve
