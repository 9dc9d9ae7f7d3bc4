#pragma once
// From layouts to rank lists: the values of a layout in coordinate order, the groups it forms
// within [0, W) (one per complement offset), and the remap of those indices onto a rank map, the
// list of real ranks that layout values index (DeviceMesh's `_rank_map`).

#include <cstdint>
#include <span>
#include <vector>

#include "core/result.h"
#include "layout/int_tensor.h"
#include "layout/layout.h"

namespace dtplan::layout {

// The layout's values in lexicographic coordinate order over the flat modes (nested loops, the
// last flat mode innermost); G2 calls it `codomain`.
// Examples: (2,3):(3,1) -> 0..5; (2,3):(1,2) -> 0,2,4,1,3,5; (2,2):(4,1) -> 0,1,4,5;
// (2,2):(2,4) -> 0,4,2,6.
// @pre size(l) entries fit in memory (callers bound it: DeviceMesh caps its rank count).
// @post result.size() == size(l) and result[i] == value_at(l, i).
std::vector<std::int64_t> all_ranks_from_zero(const Layout& l);

// One group per complement offset o (ascending), each [o + v for v in all_ranks_from_zero(l)]:
// a [G, size(l)] tensor of indices with G = size(complement(l, w)).
// Examples: global_ranks(4:2, 8) == [[0,2,4,6],[1,3,5,7]];
// global_ranks((2,2):(2,4), 16) == [[0,4,2,6],[1,5,3,7],[8,12,10,14],[9,13,11,15]] (members in
// layout order, not sorted).
// @post error as complement(l, w); otherwise every index of [0, G*cur) appears exactly once (see
//   complement), rows ordered by their first member.
core::Result<IntTensor> global_ranks(const Layout& l, std::int64_t w);

// Real ranks instead of indices: a tensor of shape [G, *top_level_sizes(l)] whose row r holds
// rank_map[o_r + l(coord)] for every coordinate in lexicographic order, where o_r is the r-th
// complement offset of l within rank_map.size(). A nested top-level mode becomes one dimension.
// Examples: remap(2:2, [10,20,30,40]) == [[10,30],[20,40]];
// remap((2,2):(1,2), [0,2,1,4]) == [[[0,1],[2,4]]].
// @post error (kBadInput) "The rank map contains n element, which isn't large enough for layout L"
//   when cosize(l) > rank_map.size(); error when l does not stack (complement) or when its copies
//   do not fit the rank map exactly (an index would reach past its end).
core::Result<IntTensor> remap_to_tensor(const Layout& l, std::span<const std::int64_t> rank_map);

}  // namespace dtplan::layout
