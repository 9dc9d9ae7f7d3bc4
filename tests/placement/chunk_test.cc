#include "placement/chunk.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <vector>

namespace dtplan::placement {
namespace {

std::vector<std::int64_t> chunk_lengths(std::int64_t length, std::int64_t n) {
  std::vector<std::int64_t> out;
  for (std::int64_t r = 0; r < n; ++r) out.push_back(chunk_length(length, n, r));
  return out;
}

std::vector<std::int64_t> strided_indices(std::int64_t length, std::int64_t sf, std::int64_t m,
                                          std::int64_t i) {
  std::vector<std::int64_t> out;
  const std::vector<IndexRange> ranges = strided_positions(length, sf, m, i).value();
  for (const IndexRange& r : ranges) {
    for (std::int64_t g = r.begin; g < r.end; ++g) out.push_back(g);
  }
  return out;
}

using Table = std::vector<std::vector<std::int64_t>>;

Table strided_table(std::int64_t length, std::int64_t sf, std::int64_t m) {
  Table out;
  for (std::int64_t i = 0; i < m; ++i) out.push_back(strided_indices(length, sf, m, i));
  return out;
}

TEST_CASE("torch.chunk sizes: the table of redistribute.md 1.2") {
  using V = std::vector<std::int64_t>;
  CHECK(chunk_lengths(12, 4) == V{3, 3, 3, 3});
  CHECK(chunk_lengths(13, 4) == V{4, 4, 4, 1});
  CHECK(chunk_lengths(14, 4) == V{4, 4, 4, 2});
  CHECK(chunk_lengths(5, 4) == V{2, 2, 1, 0});
  CHECK(chunk_lengths(6, 4) == V{2, 2, 2, 0});
  CHECK(chunk_lengths(2, 4) == V{1, 1, 0, 0});
  CHECK(chunk_lengths(4, 6) == V{1, 1, 1, 1, 0, 0});
  CHECK(chunk_size(13, 4) == 4);
  // local_shard_size_and_offset: an empty piece's offset is clamped to L.
  CHECK(chunk_piece(5, 4, 3) == IndexRange{5, 5});
  CHECK(chunk_piece(13, 4, 3) == IndexRange{12, 13});
  CHECK(chunk_piece(12, 4, 2) == IndexRange{6, 9});
  CHECK(chunk_piece(0, 3, 2) == IndexRange{0, 0});
}

TEST_CASE("torch.chunk pieces tile [0, L) and only a suffix of ranks is short") {
  for (std::int64_t length = 0; length <= 40; ++length) {
    for (std::int64_t n = 1; n <= 9; ++n) {
      const std::int64_t c = chunk_size(length, n);
      std::int64_t next = 0;
      bool short_seen = false;
      for (std::int64_t r = 0; r < n; ++r) {
        const IndexRange piece = chunk_piece(length, n, r);
        CHECK(piece.begin == next);
        CHECK(piece.length() <= c);
        if (short_seen) CHECK(piece.length() == 0);
        short_seen = short_seen || piece.length() < c;
        next = piece.end;
        for (std::int64_t g = piece.begin; g < piece.end; ++g) {
          CHECK(chunk_owner(length, n, g) == Owner{r, g - piece.begin});
        }
      }
      CHECK(next == length);
    }
  }
}

TEST_CASE("StridedShard index tables of device_mesh.md 4.2") {
  CHECK(strided_table(9, 2, 4) == Table{{0, 1, 5}, {2, 3, 6}, {4, 7}, {8}});
  CHECK(strided_table(8, 2, 2) == Table{{0, 1, 4, 5}, {2, 3, 6, 7}});
  CHECK(strided_table(12, 2, 3) == Table{{0, 1, 6, 7}, {2, 3, 8, 9}, {4, 5, 10, 11}});
  CHECK(strided_table(12, 3, 2) == Table{{0, 1, 4, 5, 8, 9}, {2, 3, 6, 7, 10, 11}});
  CHECK(strided_table(10, 2, 3) == Table{{0, 1, 5, 6}, {2, 3, 7, 8}, {4, 9}});
  CHECK(strided_table(5, 2, 2) == Table{{0, 1, 3}, {2, 4}});
  CHECK(strided_owner(9, 2, 4, 5) == Owner{0, 2});
  CHECK(strided_owner(9, 2, 4, 7) == Owner{2, 1});
  CHECK(strided_positions(9, 2, 4, 0).value() == std::vector<IndexRange>{{0, 2}, {5, 6}});
  // With one rank or sf == 1 the strided split degenerates to whole pieces / torch.chunk.
  CHECK(strided_positions(9, 3, 1, 0).value() == std::vector<IndexRange>{{0, 9}});
  CHECK(strided_positions(7, 7, 4, 0).value() == std::vector<IndexRange>{{0, 7}});
}

TEST_CASE("StridedShard: every index has exactly one owner, in ascending local order") {
  for (std::int64_t length = 0; length <= 30; ++length) {
    for (std::int64_t sf = 1; sf <= 6; ++sf) {
      for (std::int64_t m = 1; m <= 6; ++m) {
        std::map<std::int64_t, Owner> seen;
        std::int64_t total = 0;
        for (std::int64_t i = 0; i < m; ++i) {
          std::vector<std::int64_t> idx = strided_indices(length, sf, m, i);
          CHECK(static_cast<std::int64_t>(idx.size()) == strided_length(length, sf, m, i));
          for (std::size_t l = 0; l < idx.size(); ++l) {
            if (l > 0) CHECK(idx[l - 1] < idx[l]);
            CHECK(seen.emplace(idx[l], Owner{i, static_cast<std::int64_t>(l)}).second);
          }
          if (!idx.empty()) CHECK(strided_anchor(length, sf, m, i) <= idx.front());
          // Coordinate 0 holds the largest piece (collectives pad to its size).
          CHECK(strided_length(length, sf, m, i) <= strided_length(length, sf, m, 0));
          total += static_cast<std::int64_t>(idx.size());
        }
        CHECK(total == length);
        for (const auto& [g, owner] : seen) CHECK(strided_owner(length, sf, m, g) == owner);
        if (sf == 1) {
          for (std::int64_t i = 0; i < m; ++i) {
            CHECK(strided_length(length, 1, m, i) == chunk_length(length, m, i));
          }
        }
      }
    }
  }
}

TEST_CASE("StridedShard even closed forms agree with the general rule") {
  for (std::int64_t sf = 1; sf <= 5; ++sf) {
    for (std::int64_t m = 1; m <= 5; ++m) {
      for (std::int64_t c = 1; c <= 4; ++c) {
        const std::int64_t length = sf * m * c;
        for (std::int64_t i = 0; i < m; ++i) {
          std::vector<std::int64_t> idx = strided_indices(length, sf, m, i);
          REQUIRE(static_cast<std::int64_t>(idx.size()) == sf * c);
          for (std::int64_t l = 0; l < sf * c; ++l) {
            CHECK(strided_even_global(length, sf, m, i, l) == idx[static_cast<std::size_t>(l)]);
            CHECK(strided_even_owner(length, sf, m, idx[static_cast<std::size_t>(l)]) ==
                  Owner{i, l});
          }
        }
      }
    }
  }
}

TEST_CASE("StridedShard stays O(1) on huge dims and refuses unbounded range lists") {
  const std::int64_t huge = std::int64_t{1} << 60;
  CHECK(strided_length(huge, huge / 2, 2, 0) == huge / 2);
  CHECK(strided_length(huge, 3, 5, 4) + strided_length(huge, 3, 5, 0) <= huge);
  auto too_many = strided_positions(std::int64_t{1} << 24, std::int64_t{1} << 23, 2, 0);
  REQUIRE_FALSE(too_many.ok());
  CHECK(too_many.error().kind == core::ErrorKind::kUnsupported);
  // One rank owning every piece whole is one coalesced range, however many pieces there are.
  CHECK(strided_positions(huge, huge, 4, 0).value() == std::vector<IndexRange>{{0, huge}});
  CHECK(chunk_piece(huge, 3, 2).end == huge);
}

}  // namespace
}  // namespace dtplan::placement
