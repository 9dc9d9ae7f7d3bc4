#include "layout/ranks.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "layout/algebra.h"
#include "support/layout_gen.h"

namespace dtplan::layout {
namespace {

using testing::lay;
using Rows = std::vector<std::vector<std::int64_t>>;
using Ints = std::vector<std::int64_t>;

Rows groups(const char* l, std::int64_t w) { return to_rows(global_ranks(lay(l), w).value()); }

std::string remap(const char* l, Ints rank_map) {
  return to_string(remap_to_tensor(lay(l), rank_map).value());
}

// docs/reference/device_mesh.md §1.2
TEST_CASE("all_ranks_from_zero: the examples and value_at agreement") {
  CHECK(all_ranks_from_zero(lay("(2,3):(3,1)")) == Ints{0, 1, 2, 3, 4, 5});
  CHECK(all_ranks_from_zero(lay("(2,3):(1,2)")) == Ints{0, 2, 4, 1, 3, 5});
  CHECK(all_ranks_from_zero(lay("(2,2):(4,1)")) == Ints{0, 1, 4, 5});
  CHECK(all_ranks_from_zero(lay("(2,2):(2,4)")) == Ints{0, 4, 2, 6});
  CHECK(all_ranks_from_zero(lay("():()")) == Ints{0});
  std::mt19937_64 rng(0xa11);
  for (int trial = 0; trial < 500; ++trial) {
    Layout l = testing::random_layout(rng);
    Ints v = all_ranks_from_zero(l);
    REQUIRE(static_cast<std::int64_t>(v.size()) == size(l));
    for (std::int64_t i = 0; i < size(l); ++i)
      CHECK(v[static_cast<std::size_t>(i)] == value_at(l, i));
  }
}

TEST_CASE("global_ranks: the examples of sections 1.6 and 5.1") {
  CHECK(groups("4:1", 16) == Rows{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}});
  CHECK(groups("4:2", 8) == Rows{{0, 2, 4, 6}, {1, 3, 5, 7}});
  CHECK(groups("4:2", 16) == Rows{{0, 2, 4, 6}, {1, 3, 5, 7}, {8, 10, 12, 14}, {9, 11, 13, 15}});
  CHECK(groups("(2,2):(4,1)", 16) ==
        Rows{{0, 1, 4, 5}, {2, 3, 6, 7}, {8, 9, 12, 13}, {10, 11, 14, 15}});
  CHECK(groups("(2,2):(2,4)", 16) ==
        Rows{{0, 4, 2, 6}, {1, 5, 3, 7}, {8, 12, 10, 14}, {9, 13, 11, 15}});
  CHECK(groups("2:2", 8) == Rows{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
  CHECK(groups("2:1", 8) == Rows{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
  CHECK(all_ranks_from_zero(lay("(2,2):(4,1)")) == Ints{0, 1, 4, 5});  // 5.1 #7
  CHECK_FALSE(global_ranks(lay("(2,3):(2,1)"), 12).ok());
}

TEST_CASE("global_ranks: each index of [0, W) is in exactly one group, rows by first member") {
  std::mt19937_64 rng(0x61);
  for (int trial = 0; trial < 500; ++trial) {
    Layout l = testing::random_orthogonal(rng, 4);
    std::int64_t w = cosize(l) * testing::uniform(rng, 1, 3);
    w = (w + size(l) - 1);  // any W; rounded up below to whole copies
    IntTensor g = global_ranks(l, w).value();
    REQUIRE(g.shape.size() == 2);
    CHECK(g.shape[1] == size(l));
    Ints sorted = g.values;
    std::sort(sorted.begin(), sorted.end());
    Ints expect(sorted.size());
    std::iota(expect.begin(), expect.end(), 0);
    CHECK(sorted == expect);
    for (std::int64_t r = 0; r + 1 < rows(g); ++r) CHECK(row(g, r)[0] < row(g, r + 1)[0]);
    for (std::int64_t r = 0; r < rows(g); ++r) {
      for (std::int64_t j = 0; j < size(l); ++j) {
        CHECK(row(g, r)[static_cast<std::size_t>(j)] - row(g, r)[0] == value_at(l, j));
      }
    }
  }
}

TEST_CASE("remap_to_tensor: the examples of sections 1.8 and 5.1") {
  CHECK(remap("2:2", {0, 1, 2, 3}) == "[[0,2],[1,3]]");
  CHECK(remap("2:2", {10, 20, 30, 40}) == "[[10,30],[20,40]]");
  CHECK(remap("(2,2):(2,1)", {0, 1, 2, 3}) == "[[[0,1],[2,3]]]");
  CHECK(remap("(2,2):(2,1)", {10, 20, 30, 40}) == "[[[10,20],[30,40]]]");
  CHECK(remap("(2,2):(2,1)", {5, 10, 15, 20}) == "[[[5,10],[15,20]]]");
  CHECK(remap("4:1", {0, 1, 2, 3}) == "[[0,1,2,3]]");
  CHECK(remap("(2,2):(1,2)", {0, 2, 1, 3}) == "[[[0,1],[2,3]]]");
  CHECK(remap("(2,2):(1,2)", {0, 2, 1, 4}) == "[[[0,1],[2,4]]]");
  // A nested top-level mode is one dimension: nest((2,2):(4,1)) over 8 ranks is [2, 4].
  IntTensor t = remap_to_tensor(nest(lay("(2,2):(4,1)")), Ints{0, 1, 2, 3, 4, 5, 6, 7}).value();
  CHECK(t.shape == Ints{2, 4});
  CHECK(to_string(t) == "[[0,1,4,5],[2,3,6,7]]");
}

TEST_CASE("remap_to_tensor: errors") {
  auto small = remap_to_tensor(lay("(2,2):(2,1)"), Ints{0, 1, 2});
  REQUIRE_FALSE(small.ok());
  CHECK(small.error().message ==
        "The rank map contains 3 element, which isn't large enough for layout (2,2):(2,1)");
  auto partial = remap_to_tensor(lay("4:1"), Ints{0, 1, 2, 3, 4, 5});
  REQUIRE_FALSE(partial.ok());
  CHECK(partial.error().message.find("does not tile the rank map of 6 elements") !=
        std::string::npos);
  CHECK_FALSE(remap_to_tensor(lay("(2,2):(1,1)"), Ints{0, 1, 2, 3}).ok());
  CHECK_FALSE(remap_to_tensor(lay("1:1"), Ints{}).ok());
}

}  // namespace
}  // namespace dtplan::layout
