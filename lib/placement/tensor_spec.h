#pragma once
// TensorSpec: a DTensor's global shape, dtype, one placement per mesh dim and its shard order
// (PyTorch's DTensorSpec without the mesh, docs/reference/placements.md §1.7). The mesh is passed
// as its per-dim sizes wherever it matters, so this module does not depend on lib/mesh.
//
// A spec is validated once at construction; after that it is an immutable value with defaulted
// ==/<=> and a hash (plan caches key on (src spec, dst spec)). Placements hold resolved tensor
// dims (S(-1) on a rank-2 tensor is stored as S(1)) and the shard order is always explicit (the
// default one when none was given), so equal layouts compare equal.
//
//   std::vector<std::int64_t> mesh = {2, 2};
//   auto list = parse_placement_list("S(0)[1],S(0)[0]", "--from");
//   auto spec = TensorSpec::make({16, 16}, core::DType::kF32, *list, mesh);
//   format_trace_state(*spec) == "S(0)[1]S(0)[0]"

#include <compare>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/limits.h"
#include "core/result.h"
#include "placement/placement.h"
#include "placement/placement_text.h"
#include "placement/shard_order.h"

namespace dtplan::placement {

// Most mesh dims a spec may have (bit masks over mesh dims use this many bits).
inline constexpr std::size_t kMaxMeshDims = core::kMaxPlacementMeshDims;

class TensorSpec {
 public:
  // Validates and normalises, in this order:
  //   mesh: 1..kMaxMeshDims dims (more: kUnsupported), each size >= 1, product fits in int64;
  //   shape: at most core::kMaxTensorRank dims (kUnsupported), every size >= 0, numel * dtype
  //     bytes fits in int64;
  //   placements: one per mesh dim; shard dims in [-rank, rank), resolved to [0, rank);
  //   partials: one reduce op, or exactly {sum, avg} (kUnsupported otherwise, as PyTorch's
  //     assert_no_mixed_partial_types);
  //   shard order: default when absent, else validate_shard_order.
  // Errors are kBadInput unless noted, and name the mesh dim, placement and shape involved.
  static core::Result<TensorSpec> make(std::vector<std::int64_t> shape, core::DType dtype,
                                       std::vector<Placement> placements,
                                       std::span<const std::int64_t> mesh_sizes,
                                       std::optional<ShardOrder> shard_order = std::nullopt);

  // The same from parsed text: [k] suffixes become the shard order once dims are resolved.
  static core::Result<TensorSpec> make(std::vector<std::int64_t> shape, core::DType dtype,
                                       const PlacementList& list,
                                       std::span<const std::int64_t> mesh_sizes);

  [[nodiscard]] const std::vector<std::int64_t>& shape() const { return shape_; }
  [[nodiscard]] core::DType dtype() const { return dtype_; }
  [[nodiscard]] const std::vector<Placement>& placements() const { return placements_; }
  [[nodiscard]] const Placement& placement(std::size_t mesh_dim) const {
    return placements_[mesh_dim];
  }
  [[nodiscard]] const ShardOrder& shard_order() const { return shard_order_; }
  [[nodiscard]] std::size_t tensor_rank() const { return shape_.size(); }
  [[nodiscard]] std::size_t mesh_ndim() const { return placements_.size(); }
  [[nodiscard]] std::int64_t numel() const { return numel_; }
  [[nodiscard]] std::int64_t global_bytes() const;

  [[nodiscard]] bool is_replicated() const;      // every mesh dim is R
  [[nodiscard]] bool has_partial() const;        // some mesh dim is P
  [[nodiscard]] bool has_strided_shard() const;  // some mesh dim is _S
  // The reduce ops of the Partial placements, ascending, each once (PyTorch's planner collects
  // these as partial_reduce_ops_in_target). Example: P(sum),R,P(avg) -> {kSum, kAvg}.
  [[nodiscard]] std::vector<ReduceOp> partial_ops() const;

  auto operator<=>(const TensorSpec&) const = default;

 private:
  TensorSpec() = default;

  std::vector<std::int64_t> shape_;
  std::vector<Placement> placements_;
  ShardOrder shard_order_;
  std::int64_t numel_ = 0;
  core::DType dtype_ = core::DType::kF32;
};

// Checks mesh sizes as TensorSpec::make does (1..kMaxMeshDims dims, sizes >= 1, product fits).
core::Status validate_mesh_sizes(std::span<const std::int64_t> mesh_sizes);

// Checks that `mesh_sizes` fits `spec`: one size per placement, valid sizes.
core::Status check_mesh_args(const TensorSpec& spec, std::span<const std::int64_t> mesh_sizes);

// The same, and `coord` is a coordinate of that mesh (one entry per dim, 0 <= coord[i] <
// mesh_sizes[i]). Every function taking (spec, mesh_sizes, coord) runs it.
core::Status check_mesh_args(const TensorSpec& spec, std::span<const std::int64_t> mesh_sizes,
                             std::span<const std::int64_t> coord);

// Canonical placement-list text of the spec (parse_placement_list reads it back).
// Example: "S(0)[1],S(0)[0],R".
std::string format_placement_list(const TensorSpec& spec);

// One state of a DTensor redistribute trace: "S(0)[0]S(0)[1]" (see format_trace_state).
std::string format_trace_state(const TensorSpec& spec);

// For messages: "f32[16,16] S(0)[1],S(0)[0]".
std::string to_string(const TensorSpec& spec);

std::size_t hash_value(const TensorSpec& spec);

}  // namespace dtplan::placement

template <>
struct std::hash<dtplan::placement::TensorSpec> {
  std::size_t operator()(const dtplan::placement::TensorSpec& s) const {
    return dtplan::placement::hash_value(s);
  }
};
