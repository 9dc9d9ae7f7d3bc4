#pragma once
// Conversions between a shard order and _StridedShard placements
// (docs/reference/placements.md §1.4, §1.7). Both express "a higher mesh dim splits a tensor dim
// before a lower one":
//
//   S(0)[1],S(0)[0]  (mesh dim 1 splits first)   <->   _S(0,2),S(0)   on mesh (4, 2)
//
// encode: in tensor dim d's order (m_0, m_1, ...), mesh dim m_k gets split factor
//   sf = product of sizes of m_j, j < k, with m_j > m_k  (sf == 1 gives a plain Shard).
// decode: walk mesh dims right to left; insert each shard-like mesh dim of d into d's list at the
//   first position p where the product of the sizes already before p equals its sf (1 for a
//   Shard); no such position means "not decodable" (PyTorch's _StridedShardNotDecodableError).
//
// Defects of the original that these functions do not reproduce:
//  * PyTorch converts regardless of the tensor shape, but the two forms hold the same elements
//    only when the splits are even: [9] with S(0)[1],S(0)[0] on (4,2) puts index 8 on (3,1),
//    _S(0,2),S(0) puts it on (3,0). encode_spec/decode_spec check that every rank keeps the same
//    elements and refuse (kUnsupported) otherwise.
//  * Older PyTorch returns None for undecodable placements; here it is an error that names the
//    mesh dim and the split factor.
// With size-1 mesh dims the order is ambiguous (a size-1 split changes nothing), so decode may
// return a different but equivalent order; encode(decode(x)) == x always holds.

#include <cstdint>
#include <span>
#include <vector>

#include "core/result.h"
#include "placement/placement.h"
#include "placement/shard_order.h"
#include "placement/tensor_spec.h"

namespace dtplan::placement {

// Placements (resolved dims, no StridedShard) + shard order -> placements whose default order
// holds the same layout. Example: {S(0),S(0),S(0)} with order {0: [2,0,1]} on (4,3,2) ->
// {_S(0,2), _S(0,2), S(0)}.
// @post error (kBadInput) if the order does not fit the placements; (kUnsupported) if the
// placements already hold a StridedShard.
core::Result<std::vector<Placement>> encode_shard_order(std::span<const Placement> placements,
                                                        const ShardOrder& order,
                                                        std::span<const std::int64_t> mesh_sizes);

struct DecodedPlacements {
  std::vector<Placement> placements;  // every StridedShard replaced by Shard of its dim
  ShardOrder shard_order;
  bool operator==(const DecodedPlacements&) const = default;
};

// Placements read in default order -> Shard-only placements + shard order.
// Example: {_S(0,2), S(0)} on (4,2) -> {S(0), S(0)} with order {0: [1, 0]}.
// @post error (kUnsupported) when some split factor matches no position (not decodable).
core::Result<DecodedPlacements> decode_strided_shards(std::span<const Placement> placements,
                                                      std::span<const std::int64_t> mesh_sizes);

// Whether two specs put the same data on every rank: same shape and dtype, the same Partial
// placement wherever either has one, and every rank owns the same indices of every tensor dim.
// Cost: for each tensor dim, one owned_indices per coordinate of the mesh dims splitting it.
core::Result<bool> same_local_data(const TensorSpec& a, const TensorSpec& b,
                                   std::span<const std::int64_t> mesh_sizes);

// The spec with its shard order encoded into StridedShards (default order after). A spec that
// already has the default order is returned unchanged.
// @post error (kUnsupported) if the encoded spec would hold different data on some rank, or the
// spec mixes a StridedShard with a non-default order.
core::Result<TensorSpec> encode_spec(const TensorSpec& spec,
                                     std::span<const std::int64_t> mesh_sizes);

// The spec with its StridedShards decoded into Shards and a shard order. A spec without
// StridedShard is returned unchanged.
// @post error (kUnsupported) if not decodable, if the decoded spec would hold different data on
// some rank, or if the StridedShards come with a non-default order.
core::Result<TensorSpec> decode_spec(const TensorSpec& spec,
                                     std::span<const std::int64_t> mesh_sizes);

}  // namespace dtplan::placement
