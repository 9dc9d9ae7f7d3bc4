#pragma once
// One-dimensional index maps of Shard (torch.chunk) and StridedShard (two-level chunk), for one
// mesh dim of size n splitting a length L (docs/reference/placements.md §1.2,
// docs/reference/device_mesh.md §4.2). All are O(1) except strided_positions, which is linear in
// its output. Arguments come from validated specs: L >= 0, n >= 1, 0 <= r < n, split factor >= 1;
// results never overflow.

#include <cstdint>
#include <vector>

#include "core/result.h"
#include "placement/index_set.h"
#include "placement/placement.h"

namespace dtplan::placement {

// torch.chunk's full chunk size ceil(L / n). Example: chunk_size(13, 4) == 4.
std::int64_t chunk_size(std::int64_t length, std::int64_t n);

// The piece of rank r, as PyTorch's local_shard_size_and_offset: size and offset; an empty
// piece has its offset clamped to L. Only a suffix of ranks is short: for L=6, n=4 the sizes are
// 2,2,2,0 (not 2,2,1,1).
// Example: chunk_piece(5, 4, 3) == {5, 5} ([5,5), empty); chunk_piece(13, 4, 3) == {12, 13}.
// @post 0 <= begin <= end <= L, and the pieces of r = 0..n-1 tile [0, L) in order.
IndexRange chunk_piece(std::int64_t length, std::int64_t n, std::int64_t r);

// chunk_piece(L, n, r).length().
std::int64_t chunk_length(std::int64_t length, std::int64_t n, std::int64_t r);

// StridedShard(sf) on a mesh dim of size m, coordinate i: cut [0, L) into sf torch.chunk pieces,
// cut piece j (length n_j) into m torch.chunk sub-pieces, and keep sub-piece i of every piece,
// concatenated in piece order. Local size of coordinate i, in O(1).
// Example: strided_length(9, 2, 4, i) == 3, 3, 2, 1 for i = 0..3.
std::int64_t strided_length(std::int64_t length, std::int64_t sf, std::int64_t m, std::int64_t i);

// The positions of coordinate i as ascending, coalesced ranges.
// Example: strided_positions(9, 2, 4, 0) == {[0,2), [5,6)} (indices 0,1,5).
// @post error (kUnsupported) iff more than kMaxIndexRanges ranges would be needed.
core::Result<std::vector<IndexRange>> strided_positions(std::int64_t length, std::int64_t sf,
                                                        std::int64_t m, std::int64_t i);

// The local position where coordinate i's selection starts: the offset of its sub-piece of
// piece 0 (clamped into piece 0). Used as IndexSet::select's anchor.
std::int64_t strided_anchor(std::int64_t length, std::int64_t sf, std::int64_t m, std::int64_t i);

// The length a shard-like placement leaves at coordinate r of a mesh dim of size n: chunk_length
// for Shard, strided_length for StridedShard. @pre p.is_shard_like().
std::int64_t split_length(const Placement& p, std::int64_t length, std::int64_t n, std::int64_t r);

// Owner coordinate and local index of a global index.
struct Owner {
  std::int64_t coord = 0;
  std::int64_t local = 0;
  bool operator==(const Owner&) const = default;
};

// Inverse of chunk_piece: who holds g, at which local index. @pre 0 <= g < L.
// Example: chunk_owner(13, 4, 12) == {3, 0}.
Owner chunk_owner(std::int64_t length, std::int64_t n, std::int64_t g);

// Inverse of strided_positions (general uneven rule). @pre 0 <= g < L.
// Example: strided_owner(9, 2, 4, 5) == {0, 2} (coordinate 0 holds 0,1,5).
Owner strided_owner(std::int64_t length, std::int64_t sf, std::int64_t m, std::int64_t g);

// Even closed forms (docs/reference/device_mesh.md §4.2), valid when L % (sf * m) == 0, c = L / (sf
// * m): coordinate i owns chunks i, i+m, i+2m, ... of size c.
//   local -> global: g = ((l div c) * m + i) * c + (l mod c)
//   global -> (owner, local): k = g div c; owner = k mod m; l = (k div m) * c + (g mod c)
// @pre L % (sf * m) == 0, L > 0, 0 <= l < sf * c, 0 <= g < L.
std::int64_t strided_even_global(std::int64_t length, std::int64_t sf, std::int64_t m,
                                 std::int64_t i, std::int64_t l);
Owner strided_even_owner(std::int64_t length, std::int64_t sf, std::int64_t m, std::int64_t g);

}  // namespace dtplan::placement
