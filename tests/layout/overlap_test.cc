#include "layout/overlap.h"

#include <doctest/doctest.h>

#include <random>

#include "layout/algebra.h"
#include "support/layout_gen.h"

namespace dtplan::layout {
namespace {

using testing::lay;

TEST_CASE("overlap checks: the examples of sections 1.7 and 5.1 #12") {
  for (const char* valid : {"(2,3):(6,1)", "4:1", "(2,3):(3,1)", "(2,2,2):(8,4,1)",
                            "(2,2,2):(4,1,2)", "(2,(11,3),7):(1,(210,2),30)"}) {
    CHECK_MESSAGE(is_orthogonal(lay(valid)), valid);
    CHECK_MESSAGE(is_injective(lay(valid)), valid);
  }
  for (const char* overlap : {"(2,3):(2,1)", "(2,3):(1,1)", "(4,2):(1,1)"}) {
    CHECK_MESSAGE(!is_orthogonal(lay(overlap)), overlap);
    CHECK_MESSAGE(!is_injective(lay(overlap)), overlap);
  }
  // Not stackable: G2 rejects it, G1 accepts it (values 0,3,2,5,4,7 are distinct).
  CHECK_FALSE(is_orthogonal(lay("(3,2):(2,3)")));
  CHECK(is_injective(lay("(3,2):(2,3)")));
  CHECK_FALSE(is_orthogonal(lay("4:0")));
  CHECK(is_orthogonal(lay("(1,4):(0,1)")));
}

TEST_CASE("check_sorted: the ascending-order rule") {
  CHECK(is_sorted(lay("(2,2):(4,1)")));
  CHECK(is_sorted(lay("(4,2):(2,1)")));
  CHECK(is_sorted(lay("(2,2):(4,4)")));      // equal strides pass
  CHECK(is_sorted(lay("(2,1,2):(4,8,1)")));  // size-1 modes never matter
  CHECK_FALSE(is_sorted(lay("(2,2):(1,4)")));
  CHECK_FALSE(is_sorted(lay("(2,2,2):(4,1,2)")));
  CHECK(is_sorted(lay("(2,2,2):(4,2,1)")));
}

TEST_CASE("overlap checks: orthogonal implies injective, and matches complement") {
  auto all = testing::all_flat_layouts(3, {1, 2, 3, 4}, {1, 2, 3, 4, 6});
  int orthogonal = 0;
  for (const Layout& l : all) {
    bool o = is_orthogonal(l);
    orthogonal += o ? 1 : 0;
    if (o) CHECK(is_injective(l));
    CHECK(o == complement(l, cosize(l)).ok());
    // Sorted means no transposition: the coalesced strides never increase.
    std::vector<Mode> modes = flat_modes(coalesce(l));
    bool sorted = std::is_sorted(modes.begin(), modes.end(),
                                 [](const Mode& a, const Mode& b) { return a.stride > b.stride; });
    CHECK(is_sorted(l) == sorted);
  }
  CHECK(orthogonal > 100);
  std::mt19937_64 rng(0x0b);
  for (int trial = 0; trial < 300; ++trial)
    CHECK(is_orthogonal(testing::random_orthogonal(rng, 4)));
}

}  // namespace
}  // namespace dtplan::layout
