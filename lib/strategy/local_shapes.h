#pragma once
// Shapes of one tensor under one placement list on a mesh given by its per-dim sizes, as the
// strategy layer needs them: AutoParallel's validity walk (remove_invalid_configs,
// docs/reference/strategy_selection.md §2.1), the local shape a rank computes on
// (docs/reference/strategy_selection.md §3.1 rule 2), and the Partial-mix check of TensorSpec.
//
// Mesh dims are walked in order and each shard-like placement (Shard or _StridedShard, as
// PR #429's is_shard_like) splits the length the earlier ones left, torch.chunk style. These
// are O(mesh dims) and allocate only their result, since enumeration calls them per candidate.
//
//   [16,8192,4096] with S(0),S(0) on (8,8): 16 -> 2, and 2 < 8, so not shardable. Uneven splits
//   are allowed (AutoParallel #427), and torch.chunk may still leave a trailing rank empty:
//   [5] with S(0) on (4) passes (5 >= 4) and splits 2,2,1,0.

#include <cstdint>
#include <span>

#include "graph/tensor_meta.h"
#include "strategy/strategy.h"

namespace dtplan::strategy {

// remove_invalid_configs for one tensor: walking mesh dims in order, every shard-like placement
// on dim d needs the current length of d >= the mesh dim's size; the length then becomes
// ceil(length / size), for _StridedShard too (PR #429's is_shard_like). A shard dim outside the
// shape fails.
// Example: shardable({16, 8192}, {S(0), S(1)}, {8, 8}) && !shardable({16, 8192}, {S(0), S(0)}, ...)
// @pre placements.size() == mesh_sizes.size().
bool shardable(std::span<const std::int64_t> shape, const Placements& placements,
               std::span<const std::int64_t> mesh_sizes);

// The shape the rank at mesh coordinate 0 holds (the largest piece): shard-like dims split per
// mesh dim in order (placement::split_length at coordinate 0), R and P dims keep their size.
// This is ceil-division (docs/reference/strategy_selection.md §3.1 rule 2) except for an uneven
// _StridedShard, whose coordinate 0 may hold more: [2] with _S(0,2) on (2) keeps both elements at
// coordinate 0. Example: local_shape_at_origin({16,8192,4096}, {S(0), S(2)}, {8, 8}) == {2, 8192,
// 512}. @pre shardable(shape, placements, mesh_sizes).
graph::Shape local_shape_at_origin(std::span<const std::int64_t> shape,
                                   const Placements& placements,
                                   std::span<const std::int64_t> mesh_sizes);

// TensorSpec's rule (PyTorch's assert_no_mixed_partial_types): the Partial reduce ops of one
// list are all equal or exactly {sum, avg}. Example: {P(max), P(sum)} is not.
bool partials_compatible(const Placements& placements);

// The list with every placement replaced by Replicate where `replicate(p)` holds.
// Example: replicate_if({S(2), P(sum)}, [](auto p) { return p.is_partial(); }) == {S(2), R}.
template <class Pred>
Placements replicate_if(Placements placements, Pred replicate) {
  for (placement::Placement& p : placements) {
    if (replicate(p)) p = placement::Placement::replicate();
  }
  return placements;
}

// All-Replicate on `mesh_ndim` mesh dims.
inline Placements all_replicate(std::size_t mesh_ndim) { return Placements(mesh_ndim); }

}  // namespace dtplan::strategy
