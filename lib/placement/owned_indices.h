#pragma once
// Which global indices a rank owns, per tensor dim, and the inverse map (who owns an index).
// Local index l of a rank along tensor dim t is the l-th owned index (owned sets are ascending,
// see index_set.h). The rank's local tensor is the product of its per-dim owned sets.
//
//   [8] with _S(0,2),S(0) on (2,2) (docs/reference/device_mesh.md §4.2, FSDP2 + TP):
//     (0,0) owns [0,2)   (0,1) owns [4,6)   (1,0) owns [2,4)   (1,1) owns [6,8)
//   [9] with _S(0,2) on (4): 0 -> {0,1,5}, 1 -> {2,3,6}, 2 -> {4,7}, 3 -> {8}

#include <cstdint>
#include <span>
#include <vector>

#include "core/result.h"
#include "placement/index_set.h"
#include "placement/tensor_spec.h"

namespace dtplan::placement {

// The indices of `tensor_dim` owned by the rank at `coord`, in local order.
// @post result.count() == local_shape(...)[tensor_dim].
// @post error (kUnsupported) iff more than kMaxIndexRanges ranges would be needed.
core::Result<IndexSet> owned_indices(const TensorSpec& spec,
                                     std::span<const std::int64_t> mesh_sizes,
                                     std::span<const std::int64_t> coord, std::size_t tensor_dim);

// owned_indices for every tensor dim.
core::Result<std::vector<IndexSet>> owned_indices(const TensorSpec& spec,
                                                  std::span<const std::int64_t> mesh_sizes,
                                                  std::span<const std::int64_t> coord);

// Shape and global offset of the rank's block (PyTorch's compute_local_shape_and_global_offset).
struct LocalBlock {
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> offset;
  bool operator==(const LocalBlock&) const = default;
};

// The rank's block when every tensor dim's owned set is contiguous (always so without
// StridedShard). An empty piece has torch.chunk's clamped offset (IndexSet::offset).
// Example: [13, 3] with S(0) on (4): rank 3 -> shape [1,3], offset [12,0]; [5] on (4): rank 3
// -> shape [0], offset [5].
// @post error (kUnsupported) when a StridedShard makes some tensor dim non-contiguous for this
// rank; use owned_indices then.
core::Result<LocalBlock> local_block(const TensorSpec& spec,
                                     std::span<const std::int64_t> mesh_sizes,
                                     std::span<const std::int64_t> coord);

// Where global index `g` of `tensor_dim` lives: the coordinate on each mesh dim that splits
// `tensor_dim` (-1 on the others, whose coordinate is free: replicas or partial holders) and
// the local index there.
struct IndexOwner {
  std::vector<std::int64_t> coord;
  std::int64_t local = 0;
  bool operator==(const IndexOwner&) const = default;
};

// Example: [9] with _S(0,2) on (4): owner_of_index(..., 0, 7) == {{2}, 1}.
// @post every rank whose coordinate agrees with result.coord on the non-(-1) entries owns g at
// local index result.local, and no other rank owns g.
core::Result<IndexOwner> owner_of_index(const TensorSpec& spec,
                                        std::span<const std::int64_t> mesh_sizes,
                                        std::size_t tensor_dim, std::int64_t g);

}  // namespace dtplan::placement
