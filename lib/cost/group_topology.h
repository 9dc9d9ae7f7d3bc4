#pragma once
// GroupTopology: what a collective's cost depends on about its process group, and nothing else:
// how many ranks, on how many nodes, and how many of them share a node. It is computed from the
// group's actual rank list and the rank -> node map (node = rank / gpus_per_node, ranks laid out
// node by node as torchrun does), so a DeviceMesh dimension, a flattened mesh (`_flatten` of
// several dimensions) or an irregular hand-written group are all priced by the node structure
// they really have. Small, trivially copyable and hashable: it is the cache key of the cost
// models together with (collective, bytes).
//
//   8 ranks {0..7}, 8 GPUs per node            -> ranks 8, nodes 1, ranks per node 8 (uniform)
//   8 ranks {0,8,16,...,56}, 8 GPUs per node   -> ranks 8, nodes 8, ranks per node 1 (uniform)
//   4 ranks {0,1,8,20}, 8 GPUs per node        -> ranks 4, nodes 3, min 1 / max 2 (non-uniform)

#include <cstdint>
#include <span>
#include <string>

#include "core/result.h"

namespace dtplan::cost {

struct GroupTopology {
  std::int32_t ranks = 1;               // n, the communicator size
  std::int32_t nodes = 1;               // M, distinct nodes holding a member
  std::int32_t min_ranks_per_node = 1;  // the fewest members on one of those nodes
  std::int32_t max_ranks_per_node = 1;  // the most members on one of those nodes

  // Every node holds the same number of members.
  [[nodiscard]] bool uniform() const { return min_ranks_per_node == max_ranks_per_node; }
  // NCCL's ppn, nRanks / nNodes in integer arithmetic (what its tree latency uses).
  [[nodiscard]] std::int32_t ranks_per_node() const { return ranks / nodes; }

  bool operator==(const GroupTopology&) const = default;
};

// The topology of a group given by its global ranks.
// Example: group_topology({0, 8, 16, 24}, 8) == {ranks 4, nodes 4, min 1, max 1}.
// @pre nothing; errors (kBadInput, naming `what`) for an empty list, a negative or repeated
// rank, gpus_per_node < 1, or more than 2^31 - 1 ranks.
core::Result<GroupTopology> group_topology(std::span<const std::int64_t> ranks,
                                           std::int64_t gpus_per_node, std::string_view what);

// The topology of ranks 0 .. n-1 laid out node by node (the last node may be partial).
// Example: contiguous_topology(12, 8) == {ranks 12, nodes 2, min 4, max 8}.
core::Result<GroupTopology> contiguous_topology(std::int64_t n, std::int64_t gpus_per_node,
                                                std::string_view what);

// nodes x ranks_per_node, every node alike. @pre nodes >= 1, ranks_per_node >= 1 and the product
// fits in int32 (a programmer-built value, so not checked as input).
GroupTopology uniform_topology(std::int32_t nodes, std::int32_t ranks_per_node);

// "16 ranks (2 nodes x 8)" or "5 ranks (3 nodes, 1-2 per node)".
std::string describe(const GroupTopology& topology);

// A 64-bit hash with good mixing of all four fields (for the cost caches).
std::uint64_t hash_value(const GroupTopology& topology);

}  // namespace dtplan::cost
