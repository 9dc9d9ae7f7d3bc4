#pragma once
// How placements flow through a reshape (view, _unsafe_view, reshape;
// docs/reference/strategy_selection.md §2.10, docs/reference/device_mesh.md §4.3). The shapes are
// matched into groups of consecutive input dims that flatten and split into consecutive output
// dims (PyTorch's view_groups); then each mesh dim's placement, in mesh-dim order, is carried from
// its input dim to the output dim holding the same stripes:
//
//   Per group, with the current local sizes (each earlier mesh dim's split applied): a shard of
//   input dim d (split factor sf_in, 1 for Shard) cuts the flattened group into
//   F = sf_in * prod(local sizes of the group's dims before d) stripes, each split over the mesh
//   dim. The output takes the first dim j of the group whose prefix product P_j divides F and
//   whose local size holds sf_out = F / P_j whole stripes: _StridedShard(j, sf_out), a plain
//   Shard(j) when sf_out == 1. Both sides must cut each stripe the same way, i.e. each side's
//   stripe piece divides by the mesh dim size, or nothing follows it within the group.
//
//   A shard that starts the group (F == 1) may go only to the group's first output dim, as in
//   DTensor's Split rule ("a plain Shard goes to the first split output"). A later dim can hold
//   the same layout when earlier mesh dims left the first one a local size of 1 (k's
//   [16,8192,1024] with S(2),S(2) on 8x8 equals [16,8192,8,128] with S(2),S(3)), but dtplan keeps
//   DTensor's option set so that strategy counts match AutoParallel's
//   (docs/reference/strategy_selection.md §2.12: q/k/v views have 23 options).
//
//   Where no output dim fits, the input is replicated on that mesh dim first (AutoParallel runs
//   DTensor's propagation with strict_view=False: redistribute instead of failing). Replicate and
//   Partial pass through (a view is linear).
//
//   [4,6] with S(0),S(1) on (2,3) -> view [24]: S(0), _S(0,2)   (docs/reference/device_mesh.md §4.3
//   ex. 2) [16,8192,4096] with R,S(2) on (8,8) -> view [16,8192,32,128]: R,S(2)
//
// dtplan applies this to view, _unsafe_view and reshape alike (PyTorch's non-strict reshape
// replicates inner folded shards instead; same data layout, so dtplan keeps the strided form).
// A shard the flattened layout cannot represent (an uneven split followed by more dims, which
// DTensor accepts with mismatched local shapes) is replicated.

#include <cstdint>
#include <span>
#include <vector>

#include "core/result.h"
#include "graph/tensor_meta.h"
#include "strategy/strategy.h"

namespace dtplan::strategy {

// Input dims [in_begin, in_end) flatten and split into output dims [out_begin, out_end); either
// side may be empty (a size-1 dim that appears or disappears).
struct ViewGroup {
  std::int32_t in_begin = 0, in_end = 0, out_begin = 0, out_end = 0;
  bool operator==(const ViewGroup&) const = default;
};

// Example: view_groups({16,8192,4096}, {16,8192,32,128}) == {[0,1)->[0,1), [1,2)->[1,2),
// [2,3)->[2,4)}. A tensor with no elements is one group of every dim.
// @post error (kBadInput) when the element counts differ.
core::Result<std::vector<ViewGroup>> view_groups(const graph::Shape& from, const graph::Shape& to);

struct ViewPlacements {
  Placements input;   // what the view needs its input in (src with unmappable shards replicated)
  Placements output;  // the output's placements
  bool operator==(const ViewPlacements&) const = default;
};

// The placements of a view of `src` from `from` to `to` (groups from view_groups).
// @pre src.size() == mesh_sizes.size(); src fits `from` (shard dims in range).
ViewPlacements propagate_view(const graph::Shape& from, const graph::Shape& to,
                              std::span<const ViewGroup> groups, const Placements& src,
                              std::span<const std::int64_t> mesh_sizes);

}  // namespace dtplan::strategy
