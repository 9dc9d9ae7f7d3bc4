#pragma once
// Local tensor operations the redistribution executor applies around the flat collectives
// (docs/reference/placements.md §1.2, §2, §2.1): slicing and zero-padding along a dim, torch.chunk
// splitting, concatenation, index_select, and the two rank-major rearrangements that turn "split
// along dim d" into "blocks along dim 0" and back. Each op copies contiguous runs with memcpy
// (the tensor is viewed as [outer, size(dim), inner]). Shape-only tensors give shape-only
// results, so the executor runs unchanged in cost-only mode.
//
// Errors (kBadInput) name the op, the tensor and the reason:
//   "narrow: dim 2 is out of range for f32[4,6]"
// Dims are in [0, rank); negative dims are the caller's to resolve.

#include <cstdint>
#include <span>
#include <vector>

#include "core/result.h"
#include "sim/tensor.h"

namespace dtplan::sim {

// Elements [start, start + length) along `dim` (a copy). Unpadding is narrow(t, dim, 0, size).
// Example: narrow(f32[4,6] arange, 1, 2, 3) has rows {2,3,4}, {8,9,10}, ...
core::Result<Tensor> narrow(const Tensor& t, std::int64_t dim, std::int64_t start,
                            std::int64_t length);

// Zero-pads `dim` at its end up to `size`. @post narrow(pad_to(t, d, s), d, 0, t.shape()[d]) == t.
// Error when size < t.shape()[dim].
core::Result<Tensor> pad_to(const Tensor& t, std::int64_t dim, std::int64_t size);

// torch.chunk into exactly n pieces along `dim` (DTensor appends empty pieces when torch.chunk
// returns fewer): piece r has placement::chunk_length(L, n, r) elements along dim.
// Example: chunk of length 5 into 4 pieces: lengths 2, 2, 1, 0.
core::Result<std::vector<Tensor>> chunk(const Tensor& t, std::int64_t dim, std::int64_t n);

// Concatenation along `dim`; all pieces share dtype and every other size, and all have data or
// none has. @pre !pieces.empty().
core::Result<Tensor> cat(std::span<const Tensor> pieces, std::int64_t dim);

// The slices at `indices` along `dim`, in that order (repeats allowed).
// Example: index_select(arange(5), 0, {4, 0, 0}) == {4, 0, 0}.
core::Result<Tensor> index_select(const Tensor& t, std::int64_t dim,
                                  std::span<const std::int64_t> indices);

// Splits `dim` into n equal pieces and lays them out as n blocks along dim 0: piece j of shape P
// (t's shape with size(dim) / n) becomes rows [j * P[0], (j + 1) * P[0]) of a [n * P[0], P[1:]]
// tensor, i.e. block j is what group rank j receives in an all_to_all or keeps in a
// reduce_scatter. Identity for dim 0. Error unless size(dim) % n == 0 (and rank >= 1).
// Example: f32[2,4] {{0,1,2,3},{4,5,6,7}}, n 2, dim 1 -> f32[4,2] {{0,1},{4,5},{2,3},{6,7}}.
core::Result<Tensor> split_rank_major(const Tensor& t, std::int64_t n, std::int64_t dim);

// The inverse layout change: t holds n blocks along dim 0 (as an all_gather or all_to_all
// output, block j from group rank j), each of shape P = [t.shape[0] / n, t.shape[1:]]; the result
// concatenates the blocks along `dim` (shape P with P[dim] * n). Identity for dim 0.
// @post merge_rank_major(split_rank_major(t, n, d), n, d) == t.
core::Result<Tensor> merge_rank_major(const Tensor& t, std::int64_t n, std::int64_t dim);

}  // namespace dtplan::sim
