#include "layout/layout.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "layout/layout_text.h"
#include "layout/ranks.h"
#include "support/layout_gen.h"

namespace dtplan::layout {
namespace {

using testing::lay;

TEST_CASE("Layout: construction checks (docs/reference/device_mesh.md §1.9)") {
  auto bad = Layout::make(parse_int_tuple("(2,2)").value(), parse_int_tuple("(4)").value());
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().kind == core::ErrorKind::kBadInput);
  CHECK(bad.error().message.find("sizes (2,2) and strides (4) don't match") != std::string::npos);
  CHECK_FALSE(
      Layout::make(parse_int_tuple("(2,(2,2))").value(), parse_int_tuple("(4,2,1)").value()).ok());
  auto zero = Layout::make(parse_int_tuple("(0,2)").value(), parse_int_tuple("(2,1)").value());
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.error().message.find("size 0") != std::string::npos);
  CHECK_FALSE(Layout::make(2, -1).ok());
  auto big = Layout::make(parse_int_tuple("(4294967296,4294967296)").value(),
                          parse_int_tuple("(1,1)").value());
  REQUIRE_FALSE(big.ok());
  CHECK(big.error().message.find("overflows") != std::string::npos);
  CHECK_FALSE(Layout::make(3, std::int64_t{1} << 62).ok());  // cosize 2^63 + 1
  CHECK(Layout::row_major(std::vector<std::int64_t>{2, 4}).value() == lay("(2,4):(4,1)"));
  std::vector<Mode> modes = {{2, 4}, {2, 1}};
  CHECK(Layout::from_modes(modes).value() == lay("(2,2):(4,1)"));
  CHECK(Layout::from_modes(std::vector<Mode>{{4, 2}}).value() == lay("4:2"));
  CHECK(Layout::from_modes(std::vector<Mode>{}).value() == lay("():()"));
}

TEST_CASE("Layout: size, cosize, rank and top-level sizes (docs/reference/device_mesh.md §1.2)") {
  CHECK(cosize(lay("(2,2):(4,1)")) == 6);
  CHECK(cosize(lay("4:2")) == 7);
  CHECK(size(lay("(2,2):(4,1)")) == 4);
  CHECK(size(lay("():()")) == 1);
  CHECK(cosize(lay("():()")) == 1);
  CHECK(rank(lay("((2,2)):((4,1))")) == 1);
  CHECK(rank(lay("4:2")) == 1);
  CHECK(rank(lay("(2,2,2):(4,2,1)")) == 3);
  CHECK(top_level_sizes(lay("((2,2),3):((4,1),8)")) == std::vector<std::int64_t>{4, 3});
  CHECK(flat_modes(lay("((7,(5,3)),2):((900,(36,4)),1)")) ==
        std::vector<Mode>{{7, 900}, {5, 36}, {3, 4}, {2, 1}});
  CHECK(value_at(lay("(2,3):(1,2)"), 4) == 3);
  CHECK(value_at(lay("(2,3):(3,1)"), 7) == 7);  // past size(): the leftmost mode extends
}

TEST_CASE("Layout: top-level indexing and its error (docs/reference/device_mesh.md §1.9)") {
  Layout l = lay("((2,2),3):((4,1),8)");
  CHECK(mode(l, 0).value() == lay("(2,2):(4,1)"));
  CHECK(mode(l, 1).value() == lay("3:8"));
  CHECK(mode(l, -1).value() == lay("3:8"));
  CHECK(mode(l, -2).value() == lay("(2,2):(4,1)"));
  CHECK(mode(lay("4:2"), 0).value() == lay("4:2"));
  auto bad = mode(l, 2);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message ==
        "Dim 2 is out of range for layout with 2 dimensions. Expected dim to be in range [-2, 1].");
  CHECK_FALSE(mode(l, -3).ok());
}

TEST_CASE("Layout: nest, splice and concat") {
  CHECK(nest(lay("(2,2):(4,1)")) == lay("((2,2)):((4,1))"));
  CHECK(nest(lay("4:2")) == lay("(4):(2)"));
  CHECK(splice(lay("(2,4):(4,1)"), 1, 2, lay("(2,2):(2,1)")).value() == lay("(2,2,2):(4,2,1)"));
  CHECK(splice(lay("(2,4):(4,1)"), 0, 1, lay("4:16")).value() == lay("(4,4):(16,1)"));
  CHECK(splice(lay("(2,4):(4,1)"), 2, 2, lay("3:8")).value() == lay("(2,4,3):(4,1,8)"));
  CHECK(splice(lay("(2,4):(4,1)"), 0, 2, lay("((2,2)):((4,1))")).value() == lay("((2,2)):((4,1))"));
  CHECK_FALSE(splice(lay("(2,4):(4,1)"), 1, 3, lay("2:1")).ok());
  CHECK_FALSE(splice(lay("(2,4):(4,1)"), 2, 1, lay("2:1")).ok());
  std::vector<Layout> parts = {lay("2:4"), lay("(2,2):(2,1)")};
  CHECK(concat(parts).value() == lay("(2,2,2):(4,2,1)"));
  std::vector<Layout> nested = {nest(lay("(2,2):(4,1)")), lay("2:2")};
  CHECK(concat(nested).value() == lay("((2,2),2):((4,1),2)"));
  CHECK(concat(std::vector<Layout>{}).value() == lay("():()"));
}

TEST_CASE("Layout: structural helpers keep their contracts over random layouts") {
  std::mt19937_64 rng(0x1a7047);
  for (int trial = 0; trial < 300; ++trial) {
    Layout a = testing::random_layout(rng);
    Layout b = testing::random_layout(rng);
    std::vector<std::int64_t> va = all_ranks_from_zero(a);
    // cosize is one past the largest value (strides are non-negative).
    CHECK(cosize(a) == *std::max_element(va.begin(), va.end()) + 1);
    // nest: one mode, the same function.
    Layout n = nest(a);
    CHECK(rank(n) == 1);
    CHECK(mode(n, 0).value() == a);
    CHECK(all_ranks_from_zero(n) == va);
    // concat: ranks add up and every mode is kept.
    std::vector<Layout> pair = {a, b};
    Layout c = concat(pair).value();
    REQUIRE(rank(c) == rank(a) + rank(b));
    for (std::size_t i = 0; i < rank(c); ++i) {
      auto expect = i < rank(a) ? mode(a, static_cast<std::int64_t>(i))
                                : mode(b, static_cast<std::int64_t>(i - rank(a)));
      CHECK(mode(c, static_cast<std::int64_t>(i)).value() == expect.value());
    }
    CHECK(size(c) == size(a) * size(b));
    // splice: replacing every valid range keeps the other modes in place.
    auto ra = static_cast<std::int64_t>(rank(a));
    std::int64_t begin = testing::uniform(rng, 0, ra);
    std::int64_t end = testing::uniform(rng, begin, ra);
    Layout s = splice(a, begin, end, b).value();
    auto rb = static_cast<std::int64_t>(rank(b));
    REQUIRE(static_cast<std::int64_t>(rank(s)) == ra - (end - begin) + rb);
    for (std::int64_t i = 0; i < begin; ++i) CHECK(mode(s, i).value() == mode(a, i).value());
    for (std::int64_t i = 0; i < rb; ++i) CHECK(mode(s, begin + i).value() == mode(b, i).value());
    for (std::int64_t i = end; i < ra; ++i) {
      CHECK(mode(s, i - end + begin + rb).value() == mode(a, i).value());
    }
  }
}

}  // namespace
}  // namespace dtplan::layout
