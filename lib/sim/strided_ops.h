#pragma once
// The local halves of _StridedShard redistribution (docs/reference/placements.md §1.4, §2 rows
// 10-15): splitting a replicated tensor into one rank's strided shard, and the permutation that
// turns an all-gather of padded strided shards back into the replicated tensor.
//
// _StridedShard(d, sf) over n ranks: cut dim d into sf torch.chunk pieces (empties appended up to
// sf), cut each piece into n torch.chunk sub-pieces, and give rank r sub-piece r of every piece,
// concatenated in piece order. Example (9 elements, sf 2, n 4): r0 {0,1,5}, r1 {2,3,6}, r2 {4,7},
// r3 {8}. Shape-only tensors give shape-only results (cost-only mode).

#include <cstdint>
#include <vector>

#include "core/result.h"
#include "sim/tensor.h"

namespace dtplan::sim {

// Rank r's strided shard of `t` along `dim` (a copy). Errors (kBadInput): dim out of range,
// sf < 1, n < 1 or r outside [0, n).
// Example: strided_split(arange(9), 0, 2, 4, 1) == {2, 3, 6}.
core::Result<Tensor> strided_split(const Tensor& t, std::int64_t dim, std::int64_t sf,
                                   std::int64_t n, std::int64_t r);

// The rows of the all-gathered buffer that rebuild a dim of length L: the gathered buffer holds n
// blocks of `block` rows (block >= every rank's strided length, each rank's shard zero-padded to
// it), block i from rank i; global index g sits in block owner(g) at its local position.
// Result[g] = owner(g) * block + local(g), for g in [0, L) (index_select's argument).
// Example: strided_gather_positions(9, 2, 4, 3) == {0,1,3,4,6, 2,5,7,9}.
// @pre L >= 0, sf >= 1, n >= 1, block >= the largest strided length.
std::vector<std::int64_t> strided_gather_positions(std::int64_t length, std::int64_t sf,
                                                   std::int64_t n, std::int64_t block);

// The largest strided length over the n ranks (what every shard is padded to before gathering).
// Example: strided_max_length(9, 2, 4) == 3.
std::int64_t strided_max_length(std::int64_t length, std::int64_t sf, std::int64_t n);

}  // namespace dtplan::sim
