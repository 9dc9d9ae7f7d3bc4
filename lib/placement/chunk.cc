#include "placement/chunk.h"

#include <algorithm>
#include <cassert>
#include <string>

namespace dtplan::placement {

std::int64_t chunk_size(std::int64_t length, std::int64_t n) {
  assert(length >= 0 && n >= 1);
  return length / n + (length % n != 0 ? 1 : 0);
}

IndexRange chunk_piece(std::int64_t length, std::int64_t n, std::int64_t r) {
  assert(r >= 0 && r < n);
  const std::int64_t c = chunk_size(length, n);
  // r * c <= L whenever r <= L / c, so the product cannot overflow; otherwise clamp to L.
  const std::int64_t begin = (c == 0 || r > length / c) ? length : r * c;
  const std::int64_t end = begin + std::min(c, length - begin);
  return {begin, end};
}

std::int64_t chunk_length(std::int64_t length, std::int64_t n, std::int64_t r) {
  return chunk_piece(length, n, r).length();
}

std::int64_t strided_length(std::int64_t length, std::int64_t sf, std::int64_t m, std::int64_t i) {
  assert(sf >= 1);
  if (length == 0) return 0;
  // sf pieces: full ones of size a, then at most one shorter one, then empty ones.
  const std::int64_t a = chunk_size(length, sf);
  const std::int64_t full = length / a;
  const std::int64_t rest = length - full * a;
  return full * chunk_length(a, m, i) + chunk_length(rest, m, i);
}

core::Result<std::vector<IndexRange>> strided_positions(std::int64_t length, std::int64_t sf,
                                                        std::int64_t m, std::int64_t i) {
  assert(sf >= 1);
  std::vector<IndexRange> out;
  if (length == 0) return out;
  const std::int64_t a = chunk_size(length, sf);
  const std::int64_t full = length / a;
  const std::int64_t rest = length - full * a;
  const IndexRange sub = chunk_piece(a, m, i);
  if (sub.length() == a) {
    // Coordinate i takes every full piece whole: one coalesced range.
    out.push_back({0, full * a});
  } else if (sub.length() > 0) {
    if (static_cast<std::uint64_t>(full) > kMaxIndexRanges) {
      return core::Error::unsupported(
          "_StridedShard: coordinate " + std::to_string(i) + " of a mesh dim of size " +
          std::to_string(m) + " would own " + std::to_string(full) +
          " separate ranges of a dim of length " + std::to_string(length) + " (split factor " +
          std::to_string(sf) + "); at most " + std::to_string(kMaxIndexRanges) + " are supported");
    }
    out.reserve(static_cast<std::size_t>(full) + 1);
    for (std::int64_t j = 0; j < full; ++j) {
      out.push_back({j * a + sub.begin, j * a + sub.end});
    }
  }
  if (rest > 0) {
    const IndexRange tail = chunk_piece(rest, m, i);
    if (tail.length() > 0) {
      const IndexRange piece = {full * a + tail.begin, full * a + tail.end};
      if (!out.empty() && out.back().end == piece.begin) {
        out.back().end = piece.end;
      } else {
        out.push_back(piece);
      }
    }
  }
  return out;
}

std::int64_t strided_anchor(std::int64_t length, std::int64_t sf, std::int64_t m, std::int64_t i) {
  if (length == 0) return 0;
  return chunk_piece(chunk_size(length, sf), m, i).begin;
}

std::int64_t split_length(const Placement& p, std::int64_t length, std::int64_t n, std::int64_t r) {
  assert(p.is_shard_like());
  return p.is_shard() ? chunk_length(length, n, r) : strided_length(length, p.split_factor(), n, r);
}

Owner chunk_owner(std::int64_t length, std::int64_t n, std::int64_t g) {
  assert(g >= 0 && g < length);
  const std::int64_t c = chunk_size(length, n);
  return {g / c, g % c};
}

Owner strided_owner(std::int64_t length, std::int64_t sf, std::int64_t m, std::int64_t g) {
  assert(g >= 0 && g < length);
  const std::int64_t a = chunk_size(length, sf);
  const std::int64_t j = g / a;
  const std::int64_t piece_length = std::min(a, length - j * a);
  const Owner in_piece = chunk_owner(piece_length, m, g - j * a);
  // Every piece before j is full (length a).
  return {in_piece.coord, j * chunk_length(a, m, in_piece.coord) + in_piece.local};
}

std::int64_t strided_even_global(std::int64_t length, std::int64_t sf, std::int64_t m,
                                 std::int64_t i, std::int64_t l) {
  assert(length > 0 && length % (sf * m) == 0);
  const std::int64_t c = length / (sf * m);
  return ((l / c) * m + i) * c + l % c;
}

Owner strided_even_owner(std::int64_t length, std::int64_t sf, std::int64_t m, std::int64_t g) {
  assert(length > 0 && length % (sf * m) == 0);
  const std::int64_t c = length / (sf * m);
  const std::int64_t k = g / c;
  return {k % m, (k / m) * c + g % c};
}

}  // namespace dtplan::placement
