#pragma once
// The lengths one tensor dim takes under a chain of nested splits (its shard order: the first
// split is the outermost), over every coordinate of the mesh dims in the chain. The planners need
// two facts of that set, both rank-independent:
//   max_length  the longest local piece: what a collective pads every rank's piece to (the
//               padded per-rank byte count of a step is a product of these);
//   gcd         the gcd of all lengths: "every rank's length is divisible by N" iff N | gcd, the
//               evenness condition of flattened-mesh merges
//               (docs/reference/placements.md §4.3, §4.6) for all ranks at once.
//
//   [9] split by S over 2, then S over 2: 9 -> 5|4 -> 3,2|2,2: lengths {2, 3}, max 3, gcd 1
//   [8] the same: lengths {2}, max 2, gcd 2; [6] by S over 4: {2, 0}, max 2, gcd 2
//
// Each split follows torch.chunk (Shard) or the two-level rule of _StridedShard (placement/
// chunk.h); a StridedShard's local length is not monotone in the length it splits, so the whole
// set of reachable lengths is tracked (it stays small: at most 6 new values per value and level).

#include <cstdint>
#include <span>

#include "placement/placement.h"

namespace dtplan::redist {

struct Split {
  std::int64_t n = 1;        // the mesh dim's size
  placement::Placement how;  // Shard or StridedShard
  bool operator==(const Split&) const = default;
};

struct ChainStats {
  std::int64_t max_length = 0;
  std::int64_t gcd = 0;  // 0 iff every length is 0
  bool operator==(const ChainStats&) const = default;
};

// Example: chain_stats(9, {{2, S(0)}, {2, S(0)}}) == {3, 1}; chain_stats(L, {}) == {L, L}.
// @pre length >= 0, every n >= 1, every `how` shard-like.
ChainStats chain_stats(std::int64_t length, std::span<const Split> splits);

// chain_stats(length, splits).max_length, in closed form where every split is a plain Shard
// (nested torch.chunk ceilings compose: ceil(ceil(L/a)/b)); the pricing paths need only this.
std::int64_t chain_max_length(std::int64_t length, std::span<const Split> splits);

// Whether every length the chain leaves is divisible by n (n | gcd; vacuous for all-empty).
constexpr bool divides_all(const ChainStats& s, std::int64_t n) { return s.gcd % n == 0; }

// ceil(a / b) for a >= 0, b >= 1.
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a / b + (a % b != 0); }

}  // namespace dtplan::redist
