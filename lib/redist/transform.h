#pragma once
// Transform: one step of a redistribution plan before it is priced (PyTorch's _TransformInfo and
// _FlattenedTransformInfo, docs/reference/placements.md §3.1, §4.3): what runs (a collective or a
// local op), on which mesh dim(s), and the placement change it makes there.
//
//   {kAllReduce, {0}, P(sum) -> R}                       all_reduce on mesh dim 0
//   {kAllReduce, {0, 2}, P(sum) -> R, "A_C"}             one all_reduce on the flattened mesh A_C
//   {kLocalChunk, {1}, R -> S(0)}                        torch.chunk on mesh dim 1, no comms
//
// Step kinds are the comm-type keys of docs/reference/placements.md §3.1 (all_gather,
// reduce_scatter, all_reduce, all_to_all) plus two local ops for the key None: local_chunk (R -> S
// / _S) and local_partition (R -> P). Logical shapes are rank-dependent and are not stored:
// logical_shape() in redist_state.h derives them for a coordinate from the state before the step.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collective/collective.h"
#include "core/result.h"
#include "placement/placement.h"

namespace dtplan::redist {

enum class StepKind : std::uint8_t {
  kAllGather,
  kReduceScatter,
  kAllReduce,
  kAllToAll,
  kLocalChunk,
  kLocalPartition,
};

inline constexpr int kNumStepKinds = 6;

// "all_gather", "reduce_scatter", "all_reduce", "all_to_all", "local_chunk", "local_partition".
std::string_view step_kind_name(StepKind kind);
core::Result<StepKind> parse_step_kind(std::string_view text, std::string_view what);

// The collective a step runs, or nullopt for the two local ops.
std::optional<collective::Collective> collective_of(StepKind kind);

// PyTorch's _comm_type_key (docs/reference/placements.md §3.1) for one mesh dim, with "shard-like"
// = Shard or _StridedShard: P -> R all_reduce, P -> shard-like reduce_scatter, shard-like -> R
// all_gather, shard-like -> shard-like all_to_all, anything else (R -> S, R -> P, ...) nullopt (a
// local op). Example: comm_type_key(P(max), R) == kAllReduce; comm_type_key(R, S(0)) == nullopt.
std::optional<StepKind> comm_type_key(const placement::Placement& src,
                                      const placement::Placement& dst);

// The step kind of a supported transition src -> dst on one mesh dim (src != dst): the comm-type
// key, or kLocalChunk (R -> shard-like), kLocalPartition (R -> P).
// @post error (kUnsupported, naming both placements) for shard-like -> P and P(x) -> P(y), x != y
//   (docs/reference/placements.md §2 rows 8-9); (kBadInput) for src == dst.
core::Result<StepKind> transition_kind(const placement::Placement& src,
                                       const placement::Placement& dst);

struct Transform {
  StepKind kind = StepKind::kAllReduce;
  // The mesh dim, or the merged dims of a flattened step in ascending order.
  std::vector<std::int32_t> mesh_dims;
  // The placement change on every one of mesh_dims. A merged sum+avg reduction has src P(sum)
  // and avg_scale > 1 (its members may hold P(sum) or P(avg), docs/reference/placements.md §4.3
  // step 6).
  placement::Placement src;
  placement::Placement dst;
  // The user-created flattened mesh this step runs on; empty for a single mesh dim.
  std::string flattened_mesh;
  // Product of the sizes of the merged dims whose source was P(avg): the result is divided by it.
  std::int64_t avg_scale = 1;

  [[nodiscard]] bool flattened() const { return !flattened_mesh.empty(); }
  bool operator==(const Transform&) const = default;
};

// For messages and tests: "0:P(sum)->R", "0,2:P(sum)->R@A_C", "0,1:P(sum)->R@A_B/2".
std::string to_string(const Transform& t);

}  // namespace dtplan::redist
