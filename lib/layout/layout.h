#pragma once
// Layout: a shape and a stride tree with the same nesting, mapping a coordinate to an index (the
// CuTe/pycute layout, mirrored to row-major: the rightmost coordinate varies fastest). Written
// `S:D`, e.g. `(2,4):(4,1)` maps (i,j) to 4i+j. Layouts are values: every operation below is a
// pure function. Domain: sizes >= 1 and strides >= 0, with size and cosize fitting in int64.

#include <cstdint>
#include <span>
#include <vector>

#include "core/result.h"
#include "layout/int_tuple.h"

namespace dtplan::layout {

// One flat mode: `size` coordinates, `stride` apart.
struct Mode {
  std::int64_t size = 1;
  std::int64_t stride = 0;
  bool operator==(const Mode&) const = default;
};

class Layout {
 public:
  // The validated constructor. Example: make((2,2), (4,1)) is `(2,2):(4,1)`.
  // @post error (kBadInput) "sizes S and strides D don't match" unless congruent; error when a
  //   size is < 1, a stride < 0, or size/cosize overflow int64.
  static core::Result<Layout> make(IntTuple shape, IntTuple stride);
  // A flat layout: `s:d` for one mode, `(s0,s1,...):(d0,d1,...)` otherwise, `():()` for none.
  // Example: from_modes({{2,4},{2,1}}) is `(2,2):(4,1)`; from_modes({{4,2}}) is `4:2`.
  static core::Result<Layout> from_modes(std::span<const Mode> modes);
  // `sizes : suffix_product(sizes)`, always a tuple. Example: row_major({2,4}) is `(2,4):(4,1)`.
  static core::Result<Layout> row_major(std::span<const std::int64_t> sizes);

  [[nodiscard]] const IntTuple& shape() const { return shape_; }
  [[nodiscard]] const IntTuple& stride() const { return stride_; }

  // Structural equality: `4:2` differs from `(4):(2)` although both map i to 2i.
  bool operator==(const Layout&) const = default;

 private:
  Layout(IntTuple shape, IntTuple stride) : shape_(std::move(shape)), stride_(std::move(stride)) {}
  IntTuple shape_;
  IntTuple stride_;
};

// The flat modes, left to right. Example: ((7,(5,3)),2):((900,(36,4)),1) -> 7:900,5:36,3:4,2:1.
std::vector<Mode> flat_modes(const Layout& l);

// Number of coordinates (pycute size, `numel` in DeviceMesh). Example: size((2,2):(4,1)) == 4.
std::int64_t size(const Layout& l);

// One past the value at the last coordinate: sum (s-1)*d + 1. Examples: (2,2):(4,1) -> 6; 4:2 -> 7.
std::int64_t cosize(const Layout& l);

// Number of top-level modes; a scalar layout has one. Example: rank(((2,2)):((4,1))) == 1.
std::size_t rank(const Layout& l);

// The size of each top-level mode (a nested mode counts as one). Example: ((2,2),3) -> {4,3}.
std::vector<std::int64_t> top_level_sizes(const Layout& l);

// Top-level mode `i`, Python-style negative indices allowed; a scalar layout's mode 0 is itself.
// Example: mode(((2,2),3):((4,1),8), 0) is `(2,2):(4,1)`; mode(L, -1) is `3:8`.
// @post error "Dim i is out of range for layout with n dimensions. Expected dim to be in range
//   [-n, n-1]." unless -n <= i < n.
core::Result<Layout> mode(const Layout& l, std::int64_t i);

// The value at a linear index, peeling coordinates from the right (rightmost mode fastest); the
// leftmost flat mode takes whatever remains, so indices past size() extend it (the convention
// composition relies on). Example: value_at((2,3):(1,2), 4) == 1 + 2*1 == 3.
// @pre index >= 0 and the value fits in int64 (always true for index < size(l)).
std::int64_t value_at(const Layout& l, std::int64_t index);

// Wraps the whole layout into one top-level mode: S:D -> (S):(D). Example: (2,2):(4,1) ->
// ((2,2)):((4,1)). A multi-mode mesh dim is nested so that it remaps to one group dimension.
// @post rank(result) == 1, mode(result, 0) == l, and the index->value function is unchanged.
Layout nest(const Layout& l);

// Replaces top-level modes [begin, end) of `l` by the top-level modes of `replacement` (Python
// slice assignment on the size and stride lists). The result is always a tuple layout.
// Example: splice((2,4):(4,1), 1, 2, (2,2):(2,1)) == (2,2,2):(4,2,1).
// @post error unless 0 <= begin <= end <= rank(l); rank(result) ==
//   rank(l) - (end - begin) + rank(replacement).
core::Result<Layout> splice(const Layout& l, std::int64_t begin, std::int64_t end,
                            const Layout& replacement);

// Concatenation: the top-level modes of every layout, in order, become the top-level modes of one
// tuple layout. Example: concat({2:4, (2,2):(2,1)}) == (2,2,2):(4,2,1); concat({nest(A), 2:1})
// keeps A as one nested mode.
// @post rank(result) == sum of rank(l_i); error only when cosize overflows int64.
core::Result<Layout> concat(std::span<const Layout> layouts);

}  // namespace dtplan::layout
