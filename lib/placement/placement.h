#pragma once
// Placement: how one mesh dim lays out a DTensor (docs/reference/placements.md §1.1-1.6). A 16-byte
// value type with defaulted ==/<=> and a hash, so placement lists can key plan caches.
//
//   Shard(d)              S(d)       torch.chunk split of tensor dim d over the mesh dim
//   _StridedShard(d, sf)  _S(d,sf)   split d into sf pieces, then each piece over the mesh dim
//   Replicate             R          every rank of the mesh dim holds the same data
//   Partial(op)           P(op)      the value is op-reduced over the ranks of the mesh dim
//
// Values are canonical: fields that do not apply to a kind hold their defaults, and a strided
// shard with split factor 1 is a plain Shard (the same data layout,
// docs/reference/device_mesh.md §4.1), so equal layouts compare equal.

#include <cassert>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace dtplan::placement {

enum class PlacementKind : std::uint8_t { kReplicate, kPartial, kShard, kStridedShard };

// The reduce ops of Partial that dtplan supports (PyTorch also lists product and bitwise ops;
// they have no inverse for Replicate -> Partial and are rejected by the parser).
enum class ReduceOp : std::uint8_t { kSum, kAvg, kMax, kMin };

class Placement {
 public:
  // Replicate.
  constexpr Placement() = default;

  static constexpr Placement replicate() { return {}; }
  // Example: Placement::partial() == Placement::partial(ReduceOp::kSum).
  static constexpr Placement partial(ReduceOp op = ReduceOp::kSum) {
    return {PlacementKind::kPartial, op, 0, 1};
  }
  // `dim` may be negative (S(-1)); TensorSpec::make resolves it against the tensor rank.
  static constexpr Placement shard(std::int32_t dim) {
    return {PlacementKind::kShard, ReduceOp::kSum, dim, 1};
  }
  // Example: strided_shard(0, 2) prints "_S(0,2)"; strided_shard(0, 1) == shard(0).
  // @pre split_factor >= 1 (parsers check this and report it as bad input).
  static constexpr Placement strided_shard(std::int32_t dim, std::int64_t split_factor) {
    assert(split_factor >= 1);
    return split_factor == 1
               ? shard(dim)
               : Placement{PlacementKind::kStridedShard, ReduceOp::kSum, dim, split_factor};
  }

  [[nodiscard]] constexpr PlacementKind kind() const { return kind_; }
  // The tensor dim of a Shard or StridedShard (0 for other kinds).
  [[nodiscard]] constexpr std::int32_t dim() const { return dim_; }
  // The split factor of a StridedShard (1 for other kinds).
  [[nodiscard]] constexpr std::int64_t split_factor() const { return split_factor_; }
  // The reduce op of a Partial (kSum for other kinds, so check is_partial() first).
  [[nodiscard]] constexpr ReduceOp reduce_op() const { return op_; }

  [[nodiscard]] constexpr bool is_replicate() const { return kind_ == PlacementKind::kReplicate; }
  [[nodiscard]] constexpr bool is_partial() const { return kind_ == PlacementKind::kPartial; }
  // Plain Shard only, as PyTorch's is_shard(): a StridedShard is not a Shard.
  [[nodiscard]] constexpr bool is_shard() const { return kind_ == PlacementKind::kShard; }
  [[nodiscard]] constexpr bool is_strided_shard() const {
    return kind_ == PlacementKind::kStridedShard;
  }
  // Shard or StridedShard (PyTorch's _is_shard_like): the mesh dim splits a tensor dim.
  [[nodiscard]] constexpr bool is_shard_like() const { return is_shard() || is_strided_shard(); }
  [[nodiscard]] constexpr bool is_shard_like(std::int32_t dim) const {
    return is_shard_like() && dim_ == dim;
  }

  // The same placement on another tensor dim (used to resolve negative dims).
  // @pre is_shard_like().
  [[nodiscard]] constexpr Placement with_dim(std::int32_t dim) const {
    Placement out = *this;
    out.dim_ = dim;
    return out;
  }

  constexpr auto operator<=>(const Placement&) const = default;

 private:
  constexpr Placement(PlacementKind kind, ReduceOp op, std::int32_t dim, std::int64_t sf)
      : kind_(kind), op_(op), dim_(dim), split_factor_(sf) {}

  PlacementKind kind_ = PlacementKind::kReplicate;
  ReduceOp op_ = ReduceOp::kSum;
  std::int32_t dim_ = 0;
  std::int64_t split_factor_ = 1;
};

// Whether two Partial reduce ops may meet: in one placement list (assert_no_mixed_partial_types)
// or in one merged collective. True iff equal or the pair is {sum, avg}, which commute.
// Example: partial_ops_compatible(kSum, kAvg) && !partial_ops_compatible(kSum, kMax).
constexpr bool partial_ops_compatible(ReduceOp a, ReduceOp b) {
  auto sum_like = [](ReduceOp op) { return op == ReduceOp::kSum || op == ReduceOp::kAvg; };
  return a == b || (sum_like(a) && sum_like(b));
}

// "sum", "avg", "max", "min".
std::string_view reduce_op_name(ReduceOp op);

// Canonical short form: "S(0)", "_S(0,2)", "R", "P(sum)". Example: to_string(shard(-1)) == "S(-1)".
std::string to_string(const Placement& p);

// PyTorch repr, used in messages that quote DTensor: "Shard(dim=0)", "_StridedShard(dim=0, sf=2)",
// "Replicate()", "Partial(sum)". The parser reads it back.
std::string to_long_string(const Placement& p);

// Deterministic hash (independent of the standard library's hash).
std::size_t hash_value(const Placement& p);

}  // namespace dtplan::placement

template <>
struct std::hash<dtplan::placement::Placement> {
  std::size_t operator()(const dtplan::placement::Placement& p) const {
    return dtplan::placement::hash_value(p);
  }
};
