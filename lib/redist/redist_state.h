#pragma once
// RedistState: where a redistribution is between steps: one placement per mesh dim and the shard
// order (the planner state of docs/reference/placements.md §3.4). Unlike a TensorSpec it may hold
// Partials of different ops (R -> P(max) next to a source P(sum), which greedy plans reach; see
// transition rules below), and it is not validated against a tensor shape.
//
// Steps change the shard order as the planners do (docs/reference/placements.md §3.4, §4.4): a
// gather or all_to_all removes the innermost split of its tensor dim, a reduce_scatter, chunk or
// all_to_all appends the new split at the end. A mesh dim of size 1 splits nothing, so where it
// sits in an order does not matter: it may be removed from any position, and states compare
// `equivalent` up to it.
//
//   state S(0),S(0) order {0:[0,1]}; all_gather on mesh dim 1 -> S(0),R order {0:[0]}
//   state R,P(sum); reduce_scatter P(sum) -> S(1) on mesh dim 1 -> R,S(1)

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/result.h"
#include "placement/shard_order.h"
#include "placement/tensor_spec.h"
#include "redist/split_chain.h"
#include "redist/transform.h"

namespace dtplan::redist {

struct RedistState {
  std::vector<placement::Placement> placements;
  placement::ShardOrder order;
  bool operator==(const RedistState&) const = default;
};

RedistState state_of(const placement::TensorSpec& spec);

// Equal placements and, per tensor dim, equal orders once size-1 mesh dims are dropped.
bool equivalent(const RedistState& a, const RedistState& b,
                std::span<const std::int64_t> mesh_sizes);

// Whether mesh dim `m` may leave its tensor dim's order: every split after it has size 1.
bool poppable(const RedistState& state, std::int32_t m, std::span<const std::int64_t> mesh_sizes);

// The state after `t`. Checks (errors are kBadInput and name the step): the mesh dims exist, are
// ascending and distinct, and hold t.src (a merged sum+avg step: P(sum) or P(avg), with avg_scale
// the product of the P(avg) dims' sizes); t.kind == transition_kind(t.src, t.dst); a step on
// several dims is an all_gather (popped in descending order), reduce_scatter (appended in
// ascending order) or all_reduce of plain Shard/Partial placements and names a flattened mesh;
// every gathered or moved split is poppable; an all_to_all changes the tensor dim.
core::Result<RedistState> apply_transform(const RedistState& state, const Transform& t,
                                          std::span<const std::int64_t> mesh_sizes);

// The splits of tensor dim `tensor_dim`, in order, up to (not including) the first mesh dim in
// `stop` (a bit mask over mesh dims). Example: S(0),S(0) order {0:[1,0]}, stop {0} -> [dim 1].
std::vector<Split> chain_of(const RedistState& state, std::int32_t tensor_dim,
                            std::span<const std::int64_t> mesh_sizes, std::uint32_t stop = 0);
// The same into `out` (cleared first): no allocation once `out` has grown (the pricing paths).
void chain_into(const RedistState& state, std::int32_t tensor_dim,
                std::span<const std::int64_t> mesh_sizes, std::uint32_t stop,
                std::vector<Split>& out);

// ChainStats of every tensor dim of `shape` (max length and gcd over all ranks).
std::vector<ChainStats> dim_stats(std::span<const std::int64_t> shape, const RedistState& state,
                                  std::span<const std::int64_t> mesh_sizes);
// The max lengths of dim_stats() into `out` (cleared first).
void max_lengths(std::span<const std::int64_t> shape, const RedistState& state,
                 std::span<const std::int64_t> mesh_sizes, std::vector<std::int64_t>& out);

// The shape held by the rank at `coord`. Example: [9] with S(0),S(0) on (2,2) at (0,1) -> [2].
std::vector<std::int64_t> local_shape(std::span<const std::int64_t> shape, const RedistState& state,
                                      std::span<const std::int64_t> mesh_sizes,
                                      std::span<const std::int64_t> coord);

// The logical shape step `t` sees at `coord` (docs/reference/placements.md §1.3): the local shape
// before the step with the splits of t's mesh dims, and every later split of the same tensor dim,
// not applied. For a flattened step this is the outer logical shape of
// docs/reference/placements.md §4.3. R -> S and P -> S steps see the local shape, as in PyTorch
// (they ignore it).
std::vector<std::int64_t> logical_shape(std::span<const std::int64_t> shape,
                                        const RedistState& before, const Transform& t,
                                        std::span<const std::int64_t> mesh_sizes,
                                        std::span<const std::int64_t> coord);

// "S(0)[0]S(0)[1]R": the DTensor debug-trace form of a state.
std::string trace_state(const RedistState& state);
// "S(0)[0],S(0)[1],R": the placement-list text (parse_placement_list reads it back).
std::string state_text(const RedistState& state);

}  // namespace dtplan::redist
