#pragma once
// Overlap and order checks on layouts. DeviceMesh needs a layout to reach each index at most once
// (G1 checks injectivity); G2's orthogonality is stricter and is exactly the condition under which
// the complement, hence the process groups, exist. check_sorted is the "ascending order" rule.

#include "layout/layout.h"

namespace dtplan::layout {

// G1 `check_non_overlap`: true iff the values are pairwise distinct. O(size log size).
// Examples: (2,3):(6,1) and (3,2):(2,3) (values 0,3,2,5,4,7) are injective; (2,3):(2,1) is not.
// @pre size(l) values fit in memory.
bool is_injective(const Layout& l);

// G2 `check_orthogonal`: after coalescing, sort the flat (stride, size) pairs by stride descending
// and require every stride to be a multiple of the next pair's stride * size; fewer than two modes
// pass. A stride-0 mode of size > 1 fails (its values repeat; G2 would divide by zero).
// Examples: (2,3):(6,1), (2,3):(3,1), (2,2,2):(4,1,2), (2,(11,3),7):(1,(210,2),30) pass;
// (2,3):(2,1), (2,3):(1,1), (4,2):(1,1) and (3,2):(2,3) fail.
// @post is_orthogonal(l) implies is_injective(l), and is_orthogonal(l) holds iff
//   complement(l, w) succeeds for every w (for layouts without stride-0 modes of size > 1).
bool is_orthogonal(const Layout& l);

// G2 `check_sorted`: the flat strides of coalesce(l) are non-increasing, i.e. the layout does not
// transpose or interleave its dims. Examples: (2,2):(4,1), (4,2):(2,1) and (2,2):(4,4) pass;
// (2,2):(1,4) and (2,2,2):(4,1,2) fail. Size-1 modes never matter (coalesce drops them).
bool is_sorted(const Layout& l);

}  // namespace dtplan::layout
