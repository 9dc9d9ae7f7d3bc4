#include "layout/algebra.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "layout/layout_text.h"
#include "layout/overlap.h"
#include "layout/ranks.h"
#include "support/layout_gen.h"

namespace dtplan::layout {
namespace {

using testing::lay;

const std::vector<std::int64_t> kSizes = {1, 2, 3, 4};
const std::vector<std::int64_t> kStrides = {0, 1, 2, 4, 6};

// value_at over precomputed flat modes (the same peel rule), for tight loops.
std::int64_t eval(const std::vector<Mode>& modes, std::int64_t index) {
  std::int64_t value = 0;
  for (std::size_t i = modes.size(); i-- > 0;) {
    value += (i == 0 ? index : index % modes[i].size) * modes[i].stride;
    index /= modes[i].size;
  }
  return value;
}

// The values of `a` at the values of `b`, in b's coordinate order.
std::vector<std::int64_t> values_at(const Layout& a, const Layout& b) {
  std::vector<Mode> modes = flat_modes(a);
  std::vector<std::int64_t> out = all_ranks_from_zero(b);
  for (std::int64_t& v : out) v = eval(modes, v);
  return out;
}

// The layout without stride-0 and size-1 modes (what complement looks at).
Layout without_broadcast(const Layout& l) {
  std::vector<Mode> kept;
  for (const Mode& m : flat_modes(l)) {
    if (m.stride != 0 && m.size != 1) kept.push_back(m);
  }
  return Layout::from_modes(kept).value();
}

void check_coalesce_post(const Layout& l) {
  Layout c = coalesce(l);
  REQUIRE(size(c) == size(l));
  CHECK(cosize(c) == cosize(l));
  CHECK(all_ranks_from_zero(c) == all_ranks_from_zero(l));
  std::vector<Mode> modes = flat_modes(c);
  bool flat =
      c.shape().is_leaf() || std::all_of(c.shape().elements().begin(), c.shape().elements().end(),
                                         [](const IntTuple& e) { return e.is_leaf(); });
  bool no_unit = std::all_of(modes.begin(), modes.end(), [](const Mode& m) { return m.size > 1; });
  CHECK(flat);
  CHECK(c.shape().is_leaf() == (modes.size() == 1));  // one mode is a scalar layout
  CHECK((no_unit || c == Layout::make(1, 1).value()));
  CHECK(coalesce(c) == c);
}

TEST_CASE("coalesce: preserves the index->value function over every small layout") {
  for (const Layout& l : testing::all_flat_layouts(3, kSizes, kStrides)) check_coalesce_post(l);
  std::mt19937_64 rng(0xc0a1e5ce);
  for (int trial = 0; trial < 1000; ++trial) check_coalesce_post(testing::random_layout(rng));
}

TEST_CASE("coalesce: the examples of sections 1.3 and 5.1") {
  CHECK(coalesce(lay("(3,2):(2,1)")) == lay("6:1"));
  CHECK(coalesce(lay("(2,3,4):(12,4,1)")) == lay("24:1"));
  CHECK(coalesce(lay("(3,2):(4,1)")) == lay("(3,2):(4,1)"));
  CHECK(coalesce(lay("(1,3,1,5,1):(0,10,17,2,1)")) == lay("15:2"));
  CHECK(coalesce(lay("(1,1,1):(1,42,0)")) == lay("1:1"));  // G1 (G2 would give ():())
  CHECK(coalesce(lay("((7,(5,3)),2):((900,(36,4)),1)")) == lay("(7,5,3,2):(900,36,4,1)"));
  CHECK(coalesce(lay("((7,(5,3)),2):((30,(6,2)),1)")) == lay("210:1"));
  CHECK(coalesce(lay("(2,4,6):(24,6,1)")) == lay("48:1"));
  CHECK(coalesce(lay("((2,2),(2,2)):((32,8),(4,1))")) == lay("(2,4,2):(32,4,1)"));
  CHECK(coalesce(lay("(2,2,2):(4,2,1)")) == lay("8:1"));
  CHECK(coalesce(lay("(2,2):(4,1)")) == lay("(2,2):(4,1)"));
  CHECK(coalesce(lay("(2,3):(0,1)")) == lay("(2,3):(0,1)"));  // a broadcast mode keeps stride 0
  CHECK(coalesce(lay("(2,3):(0,0)")) == lay("6:0"));
}

TEST_CASE("coalesce: a mode whose extent overflows int64 stays apart (fuzz regression)") {
  // 2 * 7444444444444477777 is past INT64_MAX, so the 2-mode cannot continue into the 5-mode.
  Layout l = lay("((1,(5,2)),2):((900,(3647777777,7444444444444477777)),1)");
  CHECK(coalesce(l) == lay("(5,2,2):(3647777777,7444444444444477777,1)"));
  CHECK(coalesce(lay("(2,2):(1,4611686018427387904)")) == lay("(2,2):(1,4611686018427387904)"));
}

void check_complement_post(const Layout& l, std::int64_t w) {
  auto c = complement(l, w);
  Layout kept = without_broadcast(l);
  REQUIRE(c.ok() == is_orthogonal(kept));
  if (!c.ok()) {
    CHECK(c.error().kind == core::ErrorKind::kBadInput);
    return;
  }
  std::vector<Mode> modes = flat_modes(*c);
  for (std::size_t i = 0; i + 1 < modes.size(); ++i) CHECK(modes[i].stride > modes[i + 1].stride);
  std::vector<std::int64_t> offsets = all_ranks_from_zero(*c);
  CHECK(std::is_sorted(offsets.begin(), offsets.end()));
  CHECK(std::adjacent_find(offsets.begin(), offsets.end()) == offsets.end());
  std::vector<std::int64_t> all;
  for (std::int64_t o : offsets) {
    for (std::int64_t v : all_ranks_from_zero(kept)) all.push_back(o + v);
  }
  std::sort(all.begin(), all.end());
  std::int64_t cur = 1;  // the extent of the largest mode
  for (const Mode& m : flat_modes(kept)) cur = std::max(cur, m.size * m.stride);
  std::vector<std::int64_t> expect(static_cast<std::size_t>((w + cur - 1) / cur * cur));
  std::iota(expect.begin(), expect.end(), 0);  // [0, W) rounded up to whole copies of l
  CHECK(all == expect);
}

TEST_CASE("complement: tiles [0, W) exactly once over every small layout") {
  for (const Layout& l : testing::all_flat_layouts(3, kSizes, kStrides)) {
    check_complement_post(l, cosize(l));
    check_complement_post(l, 2 * cosize(l) + 1);
  }
  std::mt19937_64 rng(0xc011);
  for (int trial = 0; trial < 500; ++trial) {
    Layout l = testing::random_orthogonal(rng, 4);
    check_complement_post(l, cosize(l) * testing::uniform(rng, 1, 4));
    check_complement_post(testing::random_layout(rng), testing::uniform(rng, 1, 100));
  }
  CHECK_FALSE(complement(lay("4:1"), 0).ok());
}

TEST_CASE("complement: the examples of sections 1.4 and 5.1") {
  auto offsets = [](const char* l, std::int64_t w) {
    return all_ranks_from_zero(complement(lay(l), w).value());
  };
  CHECK(complement(lay("4:2"), 8).value() == lay("2:1"));
  CHECK(offsets("4:2", 8) == std::vector<std::int64_t>{0, 1});
  CHECK(complement(lay("4:2"), 16).value() == lay("(2,2):(8,1)"));
  CHECK(offsets("4:2", 16) == std::vector<std::int64_t>{0, 1, 8, 9});
  CHECK(complement(lay("(2,2):(4,1)"), 16).value() == lay("(2,2):(8,2)"));
  CHECK(offsets("(2,2):(4,1)", 16) == std::vector<std::int64_t>{0, 2, 8, 10});
  CHECK(complement(lay("(2,2):(4,2)"), 16).value() == lay("(2,2):(8,1)"));
  CHECK(offsets("(2,2):(4,2)", 16) == std::vector<std::int64_t>{0, 1, 8, 9});
  CHECK(complement(lay("(2,2):(2,4)"), 16).value() == lay("(2,2):(8,1)"));
  CHECK(offsets("(2,2):(2,4)", 16) == std::vector<std::int64_t>{0, 1, 8, 9});
  CHECK(complement(lay("4:1"), 8).value() == lay("2:4"));  // not the docstring's loose 2:1
  CHECK(offsets("4:1", 8) == std::vector<std::int64_t>{0, 4});
  CHECK(complement(lay("2:4"), 8).value() == lay("4:1"));
  CHECK(offsets("2:4", 8) == std::vector<std::int64_t>{0, 1, 2, 3});
  CHECK(complement(lay("(2,2):(4,1)"), 8).value() == lay("2:2"));
  CHECK(offsets("(2,2):(4,1)", 8) == std::vector<std::int64_t>{0, 2});
  auto overlap = complement(lay("(2,3):(2,1)"), 12);  // pycute asserts here
  REQUIRE_FALSE(overlap.ok());
  CHECK(overlap.error().message.find("do not stack") != std::string::npos);
  CHECK_FALSE(complement(lay("(3,2):(2,3)"), 12).ok());  // injective but not stackable
}

// R(i) == A(B(i)) for a scalar B, and for an orthogonal B (whose modes never carry into one
// another in A's mixed radix); by mode otherwise, since by-mode composition adds the results of
// B's modes (left distributivity), which equals A(B(i)) only when those additions do not carry.
void check_composition_values(const Layout& a, const Layout& b, const Layout& r) {
  REQUIRE(size(r) == size(b));
  if (b.shape().is_leaf() || is_orthogonal(b)) {
    std::vector<std::int64_t> got = all_ranks_from_zero(r);
    REQUIRE(got == values_at(coalesce(a), b));
    if (cosize(b) <= size(a)) REQUIRE(got == values_at(a, b));
  }
  if (b.shape().is_leaf()) return;
  REQUIRE(rank(r) == rank(b));
  for (std::size_t k = 0; k < rank(b); ++k) {
    auto i = static_cast<std::int64_t>(k);
    check_composition_values(a, mode(b, i).value(), mode(r, i).value());
  }
}

void check_composition_post(const Layout& a, const Layout& b) {
  INFO(to_string(a), " o ", to_string(b));
  auto r = composition(a, b);
  if (!r.ok()) {
    CHECK(r.error().kind == core::ErrorKind::kUnsupported);
    return;
  }
  check_composition_values(a, b, *r);
}

TEST_CASE("composition: R(i) == A(B(i)) over every small pair") {
  auto as = testing::all_flat_layouts(2, kSizes, {1, 2, 6});
  auto bs = testing::all_flat_layouts(2, {2, 3, 4}, {0, 1, 2, 3});
  int ok = 0;
  for (const Layout& a : as) {
    for (const Layout& b : bs) {
      check_composition_post(a, b);
      ok += composition(a, b).ok() ? 1 : 0;
    }
  }
  CHECK(ok > static_cast<int>(as.size() * bs.size()) / 2);  // most pairs compose
  std::mt19937_64 rng(0xc0);
  for (int trial = 0; trial < 1000; ++trial) {
    check_composition_post(testing::random_layout(rng), testing::random_layout(rng));
  }
}

TEST_CASE("composition: a one-mode A always composes (unflattening a contiguous dim)") {
  std::mt19937_64 rng(0xd1);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<std::int64_t> sizes;
    for (std::int64_t i = testing::uniform(rng, 1, 4); i > 0; --i) {
      sizes.push_back(testing::uniform(rng, 1, 4));
    }
    Layout inner = Layout::row_major(sizes).value();
    Layout a = Layout::make(size(inner), testing::uniform(rng, 1, 8)).value();
    REQUIRE(composition(a, inner).ok());
    check_composition_post(a, inner);
  }
}

TEST_CASE("composition: the examples of sections 1.5 and 5.1") {
  CHECK(composition(lay("(6,2):(2,1)"), lay("3:2")).value() == lay("3:2"));
  CHECK(composition(lay("(4,2):(2,1)"), lay("2:1")).value() == lay("2:1"));
  CHECK(composition(lay("4:2"), lay("2:1")).value() == lay("2:2"));
  CHECK(composition(lay("4:2"), lay("(2,2):(2,1)")).value() == lay("(2,2):(4,2)"));
  auto bad = composition(lay("(4,2):(4,1)"), lay("2:3"));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("stride divisibility") != std::string::npos);
  CHECK(composition(lay("8:1"), lay("(2,2,2):(4,2,1)")).value() == lay("(2,2,2):(4,2,1)"));
  CHECK(composition(lay("(2,2):(4,1)"), lay("(2,2):(2,1)")).value() == lay("(2,2):(4,1)"));
  CHECK(composition(lay("(4,4):(16,1)"), lay("(2,8):(8,1)")).value() ==
        lay("(2,(2,4)):(32,(16,1))"));
  CHECK(composition(lay("8:1"), lay("(4,2,1):(2,1,1)")).value() == lay("(4,2,1):(2,1,1)"));
  // 5.1 #9 and #10 with their groups.
  Layout r9 = composition(lay("(4,2):(2,1)"), lay("2:1")).value();
  CHECK(to_rows(global_ranks(r9, 8).value()) ==
        std::vector<std::vector<std::int64_t>>{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
  Layout r10 = composition(lay("4:2"), lay("(2,2):(2,1)")).value();
  CHECK(mode(r10, 0).value() == lay("2:4"));
  CHECK(mode(r10, 1).value() == lay("2:2"));
  CHECK(to_rows(global_ranks(mode(r10, 0).value(), 8).value()) ==
        std::vector<std::vector<std::int64_t>>{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  CHECK(to_rows(global_ranks(mode(r10, 1).value(), 8).value()) ==
        std::vector<std::vector<std::int64_t>>{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
  // Shape divisibility: (3,2):(4,1) has no 3-element inner run to split off.
  auto shape = composition(lay("(3,2):(4,1)"), lay("3:1"));
  REQUIRE_FALSE(shape.ok());
  CHECK(shape.error().message.find("shape divisibility") != std::string::npos);
  CHECK(composition(lay("4:2"), lay("3:0")).value() == lay("3:0"));
}

}  // namespace
}  // namespace dtplan::layout
