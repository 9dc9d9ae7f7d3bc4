#pragma once
// Collectives along an arbitrary tensor dim, built from the flat dim-0 collectives of a
// ProcessGroup and the local ops of local_ops.h, with DTensor's semantics (reference
// docs/reference/placements.md §2, §2.1, §2.2). They act on the tensors of the member ranks the
// store holds, so they run on the fake process group and on SPMD backends alike, in data and
// cost-only mode. If the collective itself fails the store is unchanged.
//
//   // mesh dim groups {{0,1},{2,3}}; rank r holds f32[2,3]
//   all_gather_dim(pg, {{0, 1}, {2, 3}}, tensors, 1);   // every rank: f32[2,6]
//
// Padding for uneven all_gather and all_to_all depends on the tensor's logical shape on the mesh
// dim (docs/reference/placements.md §1.3), which the executor knows: it pads with pad_to and trims
// with narrow around all_gather_dim and shard_dim_alltoall. reduce_scatter needs only the local
// size, so reduce_scatter_dim does its own torch.chunk padding.

#include <cstdint>
#include <vector>

#include "core/result.h"
#include "sim/process_group.h"

namespace dtplan::sim {

// all_gather along `dim`: each member's tensor (equal shapes in a group) becomes the group's
// tensors concatenated along dim in group-rank order: gathered rank-major along dim 0, then
// rearranged (merge_rank_major).
// Example: ranks 0, 1 hold f32[2,1] {{0},{1}} and {{2},{3}}; dim 1 -> both hold {{0,2},{1,3}}.
core::Status all_gather_dim(ProcessGroup& pg, std::vector<Group> groups, RankTensors& tensors,
                            std::int64_t dim);

// reduce_scatter along `dim` (docs/reference/placements.md §2 row 2): group rank g ends with
// torch.chunk piece g of the op-reduction of the group's tensors along dim. When size(dim) % n !=
// 0, every piece is zero-padded to ceil(size / n) for the collective and rank g's padding is
// trimmed afterwards. Example: n 4, f32[5] -> local sizes 2, 2, 1, 0.
core::Status reduce_scatter_dim(ProcessGroup& pg, std::vector<Group> groups, ReduceOp op,
                                RankTensors& tensors, std::int64_t dim);

// _dtensor::shard_dim_alltoall (docs/reference/placements.md §2.1): the members' tensors x (equal
// shapes, size(shard_dim) % n == 0) are split into n pieces along shard_dim; group rank j gets
// piece j of every member, concatenated along gather_dim in group-rank order. Output shape:
// shard_dim divided by n, gather_dim multiplied by n.
// Example: n 2, f32[2,4] on each rank, gather_dim 0, shard_dim 1 -> f32[4,2] on each rank.
core::Status shard_dim_alltoall(ProcessGroup& pg, std::vector<Group> groups, RankTensors& tensors,
                                std::int64_t gather_dim, std::int64_t shard_dim);

}  // namespace dtplan::sim
