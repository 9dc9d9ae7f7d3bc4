#pragma once
// The greedy planner, exactly as DTensor's default one (docs/reference/placements.md §3.3), for
// specs in default shard order without _StridedShard:
//
//   1-D mesh: one step src -> dst, or none.
//   pass 2 (only if the source has real sharding, num_shards > 1), mesh dims inner to outer:
//     the target of dim i is dst[i], except that a Shard(d) target becomes Replicate when the dims
//     before i shard d differently in the current and target placements (a misaligned or nested
//     split in front of i); emit cur[i] -> target if they differ.
//   pass 3, outer to inner: emit whatever still differs (R -> S re-sharding, P -> R, R -> P, ...).
//
// Example on (2,2): [S(0),S(1)] -> [S(1),S(0)] gives 1: S(1)->R all_gather, 0: S(0)->S(1)
// all_to_all, 1: R->S(0) chunk. Gathers of nested shards come innermost first, which is what the
// merge pass expects.
//
// Rank independence: PyTorch's greedy planner is rank-dependent only through the logical shapes
// it attaches to steps; which steps it emits depends on the placements alone. dtplan stores no
// logical shape in a step (logical_shape() derives it per coordinate), so the plan is the same on
// every rank.

#include <cstdint>
#include <span>
#include <vector>

#include "core/result.h"
#include "placement/placement.h"
#include "redist/transform.h"

namespace dtplan::redist {

// @pre src.size() == dst.size() == mesh_sizes.size() >= 1; no StridedShard and default shard
//   order (callers check; Planner rejects greedy otherwise).
// @post error (kUnsupported, naming the mesh dim and both placements) when a step would go from
//   a shard to a Partial or between different Partials.
core::Result<std::vector<Transform>> plan_greedy(std::span<const placement::Placement> src,
                                                 std::span<const placement::Placement> dst,
                                                 std::span<const std::int64_t> mesh_sizes);

}  // namespace dtplan::redist
