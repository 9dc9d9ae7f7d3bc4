#pragma once
// The layout algebra DeviceMesh is built on: coalesce, complement and composition, as in pycute
// mirrored to row-major order (scan right to left, emit, reverse). Where pycute asserts
// (composition's divisibility conditions, complement's precondition) these return an Error.

#include <cstdint>

#include "core/result.h"
#include "layout/layout.h"

namespace dtplan::layout {

// Merges adjacent flat modes that are contiguous, dropping size-1 modes. Scanning right to left
// from the head `1:0`: a size-1 mode is skipped; a head of size 1 is replaced; if
// head.size * head.stride == d the head grows to head.size * s (keeping its inner stride);
// otherwise (s:d) becomes the new head. One mode is returned as a scalar `s:d`, more as a flat
// tuple. When every size is 1 the result is `1:1` (G1; G2 would return `():()`): the stride of a
// size-1 layout never matters, and `1:1` keeps mesh dims of size 1 printable and equal.
// Unlike G1 a stride-0 mode of size > 1 keeps stride 0 (G1's 0 -> 1 rewrite would change the
// function). Examples: (3,2):(2,1) -> 6:1; (3,2):(4,1) unchanged; (1,3,1,5,1):(0,10,17,2,1) ->
// 15:2; ((7,(5,3)),2):((900,(36,4)),1) -> (7,5,3,2):(900,36,4,1); (2,2,2):(4,2,1) -> 8:1.
// @post value_at(result, i) == value_at(l, i) for every i in [0, size(l)); size and cosize are
//   unchanged; the result is flat with no size-1 mode (or is `1:1`); coalesce(result) == result.
Layout coalesce(const Layout& l);

// The "other" index set: the layout C of ascending offsets such that `l` repeated at C's offsets
// tiles [0, W) (pycute complement with cotarget W). Sort the flat (stride, size) pairs ascending,
// skip stride-0 and size-1 pairs; walking with cur = 1, each pair emits (stride/cur : cur) and sets
// cur = size*stride; finally emit (ceil(W/cur) : cur); reverse and coalesce.
// Examples: complement(4:2, 8) == 2:1; complement(4:2, 16) == (2,2):(8,1) (offsets 0,1,8,9);
// complement((2,2):(4,1), 16) == (2,2):(8,2); complement(4:1, 8) == 2:4.
// @pre  w >= 1.
// @post error (kBadInput) unless the pairs stack: each stride is a multiple of cur (pycute only
//   asserts cur <= size*stride and silently returns a size-0 mode when the stride does not divide).
//   On success the strides decrease left to right, the offsets all_ranks_from_zero(result) are
//   strictly ascending, and {o + v} over offsets o and values v of l (stride-0 modes ignored)
//   covers [0, n*cur) exactly once, where cur is the final one and n = ceil(W/cur); this is
//   [0, W) exactly when cur divides W.
core::Result<Layout> complement(const Layout& l, std::int64_t w);

// "A after B": the layout R with R(i) == A(B(i)). By mode: when B has a tuple shape, A is composed
// with each top-level mode of B and the results become the top-level modes of R (so rank(R) ==
// rank(B)). For a scalar B = s:d: d == 0 gives s:0; otherwise coalesce A to (a_0:e_0)...(a_k:e_k)
// and, with rest_s = s and rest_d = d, walk t = k down to 1: n = min(max(1, a_t/rest_d), rest_s);
// emit (n : rest_d*e_t) when n != 1; rest_s /= n; rest_d = ceil(rest_d/a_t). Finally emit
// (rest_s : rest_d*e_0) if rest_s != 1 or nothing was emitted; reverse.
// Examples: (6,2):(2,1) o 3:2 == 3:2; 4:2 o (2,2):(2,1) == (2,2):(4,2);
// (4,4):(16,1) o (2,8):(8,1) == (2,(2,4)):(32,(16,1)); 8:1 o (4,2,1):(2,1,1) == (4,2,1):(2,1,1).
// @post error (kUnsupported) when a_t and rest_d do not divide one another (pycute's "stride
//   divisibility" assertion, e.g. (4,2):(4,1) o 2:3) or rest_s is not a multiple of n (CuTe's
//   shape divisibility; pycute would silently return a layout of the wrong size), or when a
//   stride overflows int64. On success size(R) == size(B); for a scalar B, R(i) ==
//   coalesce(A)(B(i)) for every i < size(B), which is A(B(i)) whenever B(i) < size(A); for a tuple
//   B, mode k of R is A o (mode k of B), and R(i) == A(B(i)) as well when B is orthogonal (no
//   carries between modes).
core::Result<Layout> composition(const Layout& a, const Layout& b);

}  // namespace dtplan::layout
