#pragma once
// The order in which a group's ranks combine their values in a reduction, modelled on NCCL's ring
// and tree algorithms. Floating-point sums depend on that order, so two groups that hold the same
// values but straddle nodes differently can produce different bits (PyTorch #171916), while all
// ranks of ONE reduction receive identical bits.
//
// Nodes: node = global rank / gpus_per_node. A group's nodes are numbered in the order they first
// appear in its rank list (NCCL numbers nodes while scanning communicator ranks); the members of a
// node are listed by ascending global rank (NCCL's intra-node ring follows the GPU index, which is
// the local rank).
//
// Ring (NCCL's rings visit every GPU of a node before crossing to the next node): the node blocks
// concatenated in node order form a cycle, rotated so that ring position 0 is group rank 0 (NCCL's
// ring index counts from communicator rank 0).
//   ranks [0,1,4,5], 2 GPUs per node -> nodes {0,1},{4,5} -> ring 0,1,4,5 (group indices 0,1,2,3)
//   ranks [5,0,4,1], 2 GPUs per node -> nodes {4,5},{0,1} -> ring positions hold ranks 5,0,1,4
//
// Tree (NCCL's double binary tree): an intra-node chain from the lowest global rank (the head) to
// the highest (the tail), and NCCL's binary tree over the node numbers (binary_tree below); the
// second tree mirrors the first for an even node count and shifts it by one for an odd count.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "cost/nccl_constants.h"

namespace dtplan::sim {

enum class ReductionOrder : std::uint8_t {
  kNone,  // no reduction (data movement only, or a single rank)
  kRing,  // NCCL ring reduce-scatter order (reduction_program.h)
  kTree,  // intra-node chain, then a binary tree over nodes
};

// "none", "ring", "tree".
std::string_view reduction_order_name(ReductionOrder order);

// The order an NCCL algorithm reduces in. Ring and PAT reduce around the ring; Tree, NVLS,
// NVLSTree, CollNetDirect and CollNetChain combine node-local values first and then nodes over a
// tree, modelled by kTree (the switch's and the network's internal orders are not public);
// kP2p, kMeasured and kNone map to kRing (the fallback when no NCCL algorithm is known).
ReductionOrder reduction_order_of(cost::Algorithm algorithm);

// A group's node structure and ring, computed once per group.
struct GroupLayout {
  std::vector<std::vector<std::int32_t>> nodes;  // group indices per node, node order as above
  std::vector<std::int32_t> ring;                // ring[p] = group index at ring position p
  std::vector<std::int32_t> ring_position;       // inverse of ring
  bool operator==(const GroupLayout&) const = default;
};

// Example: group_layout({5, 0, 4, 1}, 2): nodes {{2,0},{1,3}} (ranks {4,5} and {0,1}),
// ring {0,1,3,2} (ranks 5,0,1,4).
// @post error (kBadInput, naming `what`) for an empty group, a negative or repeated rank, or
// gpus_per_node < 1.
core::Result<GroupLayout> group_layout(std::span<const std::int64_t> ranks,
                                       std::int64_t gpus_per_node, std::string_view what);

// A rooted tree over node numbers 0..M-1.
struct NodeTree {
  std::int32_t root = 0;
  std::vector<std::int32_t> parent;                 // -1 for the root
  std::vector<std::vector<std::int32_t>> children;  // ascending node numbers
  bool operator==(const NodeTree&) const = default;
};

// NCCL's binary tree over M nodes (`which` = 0) or its partner (`which` = 1). Tree 0: node 0 is
// the root and has one child, the largest power of two below M; a node r > 0 whose lowest set bit
// is b has children r - b/2 and r + b/2' (b/2' the largest of b/2, b/4, ... that stays below M;
// none when b = 1). Tree 1: for even M the mirror image (node r plays M-1-r), for odd M the
// shift (node r plays (r-1) mod M).
// Example: binary_tree(5, 0): 0 -> 4 -> 2 -> {1, 3}. binary_tree(4, 1): 3 -> 1 -> {0, 2}.
// @pre M >= 1, which in {0, 1}.
NodeTree binary_tree(std::int32_t nodes, int which);

}  // namespace dtplan::sim
