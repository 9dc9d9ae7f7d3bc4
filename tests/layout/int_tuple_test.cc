#include "layout/int_tuple.h"

#include <doctest/doctest.h>

#include <random>

#include "layout/layout_text.h"
#include "support/layout_gen.h"

namespace dtplan::layout {
namespace {

IntTuple tup(std::string_view text) { return parse_int_tuple(text).value(); }

TEST_CASE("IntTuple: suffix_product examples of docs/reference/device_mesh.md §1.1") {
  CHECK(suffix_product(tup("(2,4)")) == tup("(4,1)"));
  CHECK(suffix_product(tup("(2,2,2)")) == tup("(4,2,1)"));
  CHECK(suffix_product(tup("(4,4,4)")) == tup("(16,4,1)"));
  CHECK(suffix_product(tup("((2,3),4)")) == tup("((12,4),1)"));
  CHECK(suffix_product(IntTuple(5)) == IntTuple(1));
  CHECK(suffix_product(tup("()")) == tup("()"));
}

TEST_CASE("IntTuple: flatten, product, congruence and printing") {
  IntTuple t = tup("((7,(5,3)),2)");
  CHECK(flatten(t) == std::vector<std::int64_t>{7, 5, 3, 2});
  CHECK(product(t) == 210);
  CHECK(product(tup("()")) == 1);
  CHECK(t.rank() == 2);
  CHECK(IntTuple(4).rank() == 1);
  CHECK(to_string(t) == "((7,(5,3)),2)");
  CHECK(to_string(tup("()")) == "()");
  CHECK(to_string(tup("(4)")) == "(4)");
  CHECK(congruent(tup("(2,(3,4))"), tup("(8,(4,1))")));
  CHECK_FALSE(congruent(tup("((2,3))"), tup("(6)")));
  CHECK_FALSE(congruent(tup("(2,3)"), tup("(2,3,1)")));
  CHECK_FALSE(congruent(IntTuple(4), tup("(4)")));
  CHECK(congruent(tup("()"), tup("()")));
}

TEST_CASE("IntTuple: suffix_product over random trees is congruent and row-major") {
  std::mt19937_64 rng(0x5eed1);
  for (int trial = 0; trial < 500; ++trial) {
    Layout l = testing::random_layout(rng);
    IntTuple strides = suffix_product(l.shape());
    REQUIRE(congruent(l.shape(), strides));
    std::vector<std::int64_t> sizes = flatten(l.shape());
    std::vector<std::int64_t> flat = flatten(strides);
    std::int64_t acc = 1;
    for (std::size_t i = sizes.size(); i-- > 0;) {
      CHECK(flat[i] == acc);
      acc *= sizes[i];
    }
    CHECK(acc == product(l.shape()));
  }
}

}  // namespace
}  // namespace dtplan::layout
