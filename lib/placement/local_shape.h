#pragma once
// Local shapes of a TensorSpec on a mesh given by its per-dim sizes: what one rank (a mesh
// coordinate) holds, with torch.chunk semantics at every level
// (docs/reference/placements.md §1.2-1.4).
//
// Each tensor dim is split by the mesh dims of its shard order, in order; every split works on
// the length the previous one left (nested torch.chunk), a StridedShard split on the two-level
// rule. Example: [9] with S(0),S(0) on mesh (2,2): 9 -> 5|4 -> 3,2|2,2, so the ranks at
// (0,0),(0,1),(1,0),(1,1) hold 3, 2, 2, 2 elements.
//
// All functions validate mesh sizes and coordinate against the spec (check_mesh_args). The shape
// functions cost O(mesh dims + tensor rank), and local_shape_into allocates nothing.

#include <cstdint>
#include <span>
#include <vector>

#include "core/result.h"
#include "placement/tensor_spec.h"

namespace dtplan::placement {

// A set of mesh dims, bit i = mesh dim i.
using MeshDimMask = std::uint32_t;
inline constexpr MeshDimMask kAllMeshDims = ~MeshDimMask{0};
static_assert(kMaxMeshDims <= 32);

// The shape held by the rank at `coord`. Example: [9, 4] with S(0),S(0) on (2,2) at (0,1) is
// [2, 4]; [2, 8] with S(0) on (4) is [1,8], [1,8], [0,8], [0,8] for ranks 0..3.
core::Result<std::vector<std::int64_t>> local_shape(const TensorSpec& spec,
                                                    std::span<const std::int64_t> mesh_sizes,
                                                    std::span<const std::int64_t> coord);

// local_shape written into `out` (kInternal error unless out.size() == spec.tensor_rank()).
core::Status local_shape_into(const TensorSpec& spec, std::span<const std::int64_t> mesh_sizes,
                              std::span<const std::int64_t> coord, std::span<std::int64_t> out);

// The shape after only the splits of the mesh dims in `applied`: each tensor dim takes its
// shard-order splits in order and stops at the first mesh dim not in `applied` (a later split
// is defined only on the piece an earlier one left).
// Example: shape_after(..., 0) == global shape; shape_after(..., kAllMeshDims) == local_shape.
// The greedy planner's logical[i] (docs/reference/placements.md §3.3) is shape_after with mesh dims
// 0..i-1 on a default-order spec.
core::Result<std::vector<std::int64_t>> shape_after(const TensorSpec& spec,
                                                    std::span<const std::int64_t> mesh_sizes,
                                                    std::span<const std::int64_t> coord,
                                                    MeshDimMask applied);

// The "logical shape" seen by the group of mesh dim `mesh_dim` (docs/reference/placements.md §1.3;
// the graph planner's get_logical_shape): the local shape with `mesh_dim`'s own split, and every
// split after it in the same tensor dim's order, not yet applied. This rank's coordinates on the
// other mesh dims are used; the coordinate on `mesh_dim` does not matter.
// Example: [9] with S(0),S(0) on (2,2): mesh dim 1 at (1,*) sees [4]; mesh dim 0 sees [9].
core::Result<std::vector<std::int64_t>> logical_shape(const TensorSpec& spec,
                                                      std::span<const std::int64_t> mesh_sizes,
                                                      std::span<const std::int64_t> coord,
                                                      std::size_t mesh_dim);

// Bytes held by the rank at `coord`: numel(local shape) * dtype bytes.
core::Result<std::int64_t> local_bytes(const TensorSpec& spec,
                                       std::span<const std::int64_t> mesh_sizes,
                                       std::span<const std::int64_t> coord);

// Product of the sizes of the shard-like mesh dims (the number of distinct pieces).
// PyTorch's num_shards counts plain Shard only, which undercounts _StridedShard specs
// (docs/reference/placements.md §5.3 quirk); here a StridedShard mesh dim splits the tensor and
// counts. Example: S(0),R,_S(1,2) on (2,3,4) -> 8.
core::Result<std::int64_t> num_shards(const TensorSpec& spec,
                                      std::span<const std::int64_t> mesh_sizes);

// Whether mesh dim `mesh_dim` splits evenly on every rank: for every coordinate of the other
// mesh dims, all ranks of its group get the same length (no padding in collectives). Shard:
// the length it splits is divisible by the group size; StridedShard: every one of its sf pieces
// is. R and P are even. Example: [9] S(0),S(0) on (2,2): mesh dim 0 is not (5|4), and mesh
// dim 1 is not (5 -> 3,2); [8] on (2,2) is even on both.
// @post error (kUnsupported) only if nested uneven splits reach more than 4096 distinct lengths.
core::Result<bool> is_evenly_sharded(const TensorSpec& spec,
                                     std::span<const std::int64_t> mesh_sizes,
                                     std::size_t mesh_dim);

// True iff is_evenly_sharded on every mesh dim.
core::Result<bool> is_evenly_sharded(const TensorSpec& spec,
                                     std::span<const std::int64_t> mesh_sizes);

}  // namespace dtplan::placement
