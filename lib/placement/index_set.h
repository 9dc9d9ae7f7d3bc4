#pragma once
// IndexSet: the global indices of one tensor dim that a rank owns, in local order, as ascending
// disjoint half-open ranges. Sharding only ever selects ascending positions (torch.chunk pieces,
// and StridedShard pieces concatenated in piece order), so local order is ascending global order
// and a rank's local index l is the l-th smallest owned global index.
//
//   IndexSet::full(9).select({{2, 5}}, 2)  ->  ranges [2,5), offset 2, count 3

#include <compare>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/result.h"

namespace dtplan::placement {

// [begin, end) of indices.
struct IndexRange {
  std::int64_t begin = 0;
  std::int64_t end = 0;

  [[nodiscard]] constexpr std::int64_t length() const { return end - begin; }
  constexpr auto operator<=>(const IndexRange&) const = default;
};

// The most ranges one IndexSet may hold. Selections that would need more (pathological split
// factors on huge dims) return kUnsupported instead of exhausting memory.
inline constexpr std::size_t kMaxIndexRanges = std::size_t{1} << 22;

class IndexSet {
 public:
  // Owns nothing, anchored at 0.
  IndexSet() = default;

  // All of [0, length). @pre length >= 0.
  static IndexSet full(std::int64_t length);

  // The elements at the given local positions, as a new set.
  // `positions`: ascending, disjoint ranges inside [0, count()); empty ranges are skipped.
  // `anchor_position`: the local position where the selection starts, in [0, count()]; it gives
  // the offset of an empty result (torch.chunk's clamped offset, see offset()).
  // @post result.count() == sum of the positions' lengths.
  // @post error (kUnsupported) iff the result would hold more than kMaxIndexRanges ranges.
  [[nodiscard]] core::Result<IndexSet> select(std::span<const IndexRange> positions,
                                              std::int64_t anchor_position) const;

  // Coalesced: no two ranges touch, none is empty.
  [[nodiscard]] std::span<const IndexRange> ranges() const { return ranges_; }
  [[nodiscard]] std::int64_t count() const { return count_; }
  [[nodiscard]] bool empty() const { return count_ == 0; }
  // True when the set is one [offset, offset + count) range (an empty set is contiguous).
  [[nodiscard]] bool contiguous() const { return ranges_.size() <= 1; }
  // The first owned index; for an empty set, where its (empty) piece sits: the index of the
  // parent element at the anchor position, or one past the parent's last element when the
  // anchor is at the parent's end (torch.chunk: local_shard_size_and_offset returns (0, L)).
  [[nodiscard]] std::int64_t offset() const { return offset_; }
  // Global index of local position l, in O(ranges). @pre 0 <= l < count().
  [[nodiscard]] std::int64_t global_index(std::int64_t l) const;
  // Every owned index in local order. @pre count() fits in memory (tests and simulators).
  [[nodiscard]] std::vector<std::int64_t> to_vector() const;

  bool operator==(const IndexSet&) const = default;

 private:
  std::vector<IndexRange> ranges_;
  std::int64_t count_ = 0;
  std::int64_t offset_ = 0;
};

// The ranges as text, e.g. "[0,2)[5,6)"; "{}" when empty. For messages and test output.
std::string to_string(const IndexSet& set);

}  // namespace dtplan::placement
