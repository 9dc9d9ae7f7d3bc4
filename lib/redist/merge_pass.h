#pragma once
// The flattened-mesh merge pass (PyTorch's _optimize_transform_infos,
// docs/reference/placements.md §4): runs of adjacent same-kind collectives over several mesh dims
// become one collective on a flattened mesh the user created. Scanning left to right without
// reordering:
//   * a group starts at an all_gather, reduce_scatter or all_reduce on one mesh dim and takes
//     every following step whose placement pair matches the FIRST member's (identical pairs, or
//     the same target with P(sum)/P(avg) sources); all_to_all, local ops, StridedShard steps and
//     already flattened steps end a group and never merge (docs/reference/placements.md §4.6
//     recommendation 2);
//   * a step that moves nothing (every mesh dim of it has size 1, or the tensor is empty) does
//     not end a group: the merged step runs before it (PyTorch's grouping stops there, so a
//     step on a size-1 mesh dim between two reductions keeps them apart); scan_group in
//     merge_pass.cc says when such a step may be passed;
//   * the whole group merges or nothing does (no sub-groups, docs/reference/placements.md §4.2),
//     when, in this order:
//       reduce_scatter dims ascending / all_gather dims descending, else non_ascending_mesh_dims;
//       a flattened mesh over exactly those dims exists (layout match), else no_flattened_mesh;
//       reduce_scatter AND all_gather (fixing docs/reference/placements.md §4.6 defect 1): the
//       outer length of the affected tensor dim is divisible by N, the product of the merged dims'
//       sizes, on every rank (all ranks decide alike), else uneven_tensor_shape;
//   * a merged reduction of one op keeps it: P(avg) members become one P(avg) all_reduce or
//     reduce_scatter over the flattened group, which NCCL averages in the collective (ncclAvg;
//     PyTorch runs a sum and a separate divide kernel); a merged sum+avg reduction runs as P(sum)
//     and divides by avg_scale, the product of the P(avg) dims' sizes (also when those are
//     size-1 dims, where PyTorch would run the first member's op over the whole flattened
//     group).
// The outer length of an all_gather is taken before the first merged split of size > 1 (a size-1
// split changes nothing); PyTorch takes the largest member logical shape, which is longer when a
// size-1 member precedes an unmerged split.
//
// kWarnOnly (the min-cost planner, whose search already weighed every merge) changes no step and
// reports only the groups that could not merge. kMergeQuietly merges like kMerge but reports
// nothing (what pricing alone needs); where no group of two or more steps can form it
// returns the steps as they are, without applying them (the caller prices them, which checks).

#include <cstdint>
#include <span>
#include <vector>

#include "core/dtype.h"
#include "core/result.h"
#include "redist/mesh_context.h"
#include "redist/redist_state.h"
#include "redist/transform.h"
#include "redist/warnings.h"

namespace dtplan::redist {

enum class MergeMode : std::uint8_t { kMerge, kWarnOnly, kMergeQuietly };

// A merged step and the steps it replaced.
struct MergedGroup {
  std::size_t step = 0;            // its index in MergeResult::steps
  std::vector<Transform> members;  // the steps it replaced, in plan order
};

struct MergeResult {
  std::vector<Transform> steps;
  std::vector<Warning> warnings;    // one per (sorted mesh dims, reason), in plan order
  std::vector<MergedGroup> merged;  // every merged step (kMerge, kMergeQuietly), in plan order
};

// `steps` must apply to `src` in order (apply_transform); error (kBadInput) otherwise. `shape`
// is the global shape (evenness). Example (mesh (2,2,2) A,B,C with A_C flattened): src
// P(sum),R,P(sum), steps 0:P(sum)->R, 2:P(sum)->R -> one step 0,2:P(sum)->R@A_C.
core::Result<MergeResult> merge_pass(const MeshContext& mesh, std::span<const std::int64_t> shape,
                                     const RedistState& src, std::span<const Transform> steps,
                                     MergeMode mode = MergeMode::kMerge);

}  // namespace dtplan::redist
