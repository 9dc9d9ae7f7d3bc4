#pragma once
// ShardOrder: for each tensor dim split by several mesh dims, the order in which they split it
// (docs/reference/placements.md §1.3, §1.7). PyTorch keeps a tuple of ShardOrderEntry(tensor_dim,
// mesh_dims); here it is one flat list of (tensor dim, mesh dim) steps sorted by tensor dim, with
// each tensor dim's mesh dims in execution order (first = outermost split, last = innermost). The
// default order lists, per tensor dim, the shard-like mesh dims in ascending order.
//
//   placements S(0),S(0) with order {0: [1, 0]}  ==  text "S(0)[1],S(0)[0]": mesh dim 1 first.
//
// Both Shard and StridedShard mesh dims are listed (the graph planner pops and appends both);
// PyTorch lists only Shard when it decodes StridedShards away, which strided_encoding.h does.

#include <compare>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/result.h"
#include "placement/placement.h"

namespace dtplan::placement {

struct ShardStep {
  std::int32_t tensor_dim = 0;
  std::int32_t mesh_dim = 0;
  constexpr auto operator<=>(const ShardStep&) const = default;
};

class ShardOrder {
 public:
  ShardOrder() = default;

  // From steps in any tensor-dim order; the relative order of steps of one tensor dim is kept.
  // Example: from_steps({{1, 0}, {0, 2}, {0, 1}}) lists tensor dim 0 as [2, 1], dim 1 as [0].
  // @post error (kBadInput) on a negative dim or a mesh dim listed twice.
  static core::Result<ShardOrder> from_steps(std::vector<ShardStep> steps);

  // All steps, sorted by tensor dim, each tensor dim's mesh dims in execution order.
  [[nodiscard]] std::span<const ShardStep> steps() const { return steps_; }
  // The steps of one tensor dim (empty if it is not sharded).
  [[nodiscard]] std::span<const ShardStep> steps_of(std::int32_t tensor_dim) const;
  // Mesh dims splitting `tensor_dim`, in execution order. Example: {1, 0} for "S(0)[1],S(0)[0]".
  [[nodiscard]] std::vector<std::int32_t> mesh_dims_of(std::int32_t tensor_dim) const;
  // The innermost (last) mesh dim splitting `tensor_dim`, if any: the only one that the graph
  // planner may gather or move.
  [[nodiscard]] std::optional<std::int32_t> last_mesh_dim(std::int32_t tensor_dim) const;
  // Position of `mesh_dim` in its tensor dim's list (the [k] suffix of the text syntax).
  [[nodiscard]] std::optional<std::int32_t> position_of(std::int32_t mesh_dim) const;
  [[nodiscard]] bool empty() const { return steps_.empty(); }

  // True iff every tensor dim's mesh dims are strictly ascending (PyTorch's
  // is_default_device_order); only then may the greedy planner run.
  [[nodiscard]] bool is_default() const;

  // Planner edits. append: `mesh_dim` becomes the innermost split of `tensor_dim`.
  // @pre mesh_dim is not listed.
  void append(std::int32_t tensor_dim, std::int32_t mesh_dim);
  // Removes and returns the innermost split of `tensor_dim`. @pre last_mesh_dim(tensor_dim).
  std::int32_t pop_last(std::int32_t tensor_dim);

  auto operator<=>(const ShardOrder&) const = default;

 private:
  std::vector<ShardStep> steps_;
};

// The default order of a placement list: shard-like mesh dims per tensor dim, ascending.
// Example: S(1),S(0),S(1) -> {0: [1], 1: [0, 2]}.
ShardOrder default_shard_order(std::span<const Placement> placements);

// Checks `order` against resolved placements (PyTorch's _verify_shard_order, extended to
// StridedShard): every listed mesh dim exists and is shard-like on that tensor dim, and every
// shard-like mesh dim is listed. Errors (kBadInput) name the mesh dim and placement.
core::Status validate_shard_order(const ShardOrder& order, std::span<const Placement> placements);

// The order written by [k] suffixes (`positions[i]` is mesh dim i's suffix, or -1 for none) on
// resolved placements. Per tensor dim: no suffix means ascending; otherwise every shard-like mesh
// dim of it must carry one and they must be a permutation of 0..K-1.
// Example: S(0),S(0) with positions {1, 0} -> {0: [1, 0]}.
core::Result<ShardOrder> shard_order_from_positions(std::span<const Placement> placements,
                                                    std::span<const std::int32_t> positions);

// "{0:[1,0],2:[3]}"; "{}" when nothing is sharded. For messages.
std::string to_string(const ShardOrder& order);

std::size_t hash_value(const ShardOrder& order);

}  // namespace dtplan::placement

template <>
struct std::hash<dtplan::placement::ShardOrder> {
  std::size_t operator()(const dtplan::placement::ShardOrder& o) const {
    return dtplan::placement::hash_value(o);
  }
};
