#include "replay/fill_copies.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

namespace dtplan::replay {

TEST_CASE("fill_copies: doubling copies cover the buffer exactly, each from filled elements") {
  CHECK(fill_copies(10, 4) == std::vector<FillCopy>{{4, 0, 4}, {8, 0, 2}});
  CHECK(fill_copies(4, 4).empty());
  CHECK(fill_copies(3, 4).empty());
  CHECK(fill_copies(0, 4).empty());
  CHECK(fill_copies(16, 4) == std::vector<FillCopy>{{4, 0, 4}, {8, 0, 8}});
  for (std::int64_t total : {1, 5, 1000, 1048577, 2101346304}) {
    const std::int64_t tile = 1 << 20;
    std::int64_t filled = std::min(total, tile);
    const auto copies = fill_copies(total, tile);
    for (const FillCopy& c : copies) {
      CHECK(c.dst == filled);           // contiguous, in order
      CHECK(c.src + c.count <= c.dst);  // reads only what is already written
      CHECK(c.count >= 1);
      filled += c.count;
    }
    CHECK(filled == total);
    CHECK(copies.size() <= 12);  // log2(2101346304 / 2^20) rounds up to 11
  }
}

}  // namespace dtplan::replay
