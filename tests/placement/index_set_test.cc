#include "placement/index_set.h"

#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "support/placement_specs.h"

namespace dtplan::placement {
namespace {

using Indices = std::vector<std::int64_t>;

TEST_CASE("select picks local positions, coalesces and anchors empty selections") {
  IndexSet all = IndexSet::full(9);
  CHECK(all.count() == 9);
  CHECK(all.contiguous());
  CHECK(to_string(all) == "[0,9)");
  std::vector<IndexRange> picks = {{0, 2}, {5, 6}};
  IndexSet s = all.select(picks, 0).value();
  CHECK(s.to_vector() == Indices{0, 1, 5});
  CHECK(to_string(s) == "[0,2)[5,6)");
  CHECK_FALSE(s.contiguous());
  CHECK(s.offset() == 0);
  CHECK(s.global_index(2) == 5);
  // Selecting from a strided parent maps through it.
  std::vector<IndexRange> tail = {{1, 3}};
  IndexSet t = s.select(tail, 1).value();
  CHECK(t.to_vector() == Indices{1, 5});
  // Adjacent picks coalesce.
  std::vector<IndexRange> adjacent = {{0, 2}, {2, 4}};
  CHECK(all.select(adjacent, 0).value().ranges().size() == 1);
  // Empty selections keep torch.chunk's clamped offset: at the anchor, or past the parent's end.
  std::vector<IndexRange> none = {{3, 3}};
  CHECK(s.select(none, 3).value().offset() == 6);
  CHECK(s.select(none, 1).value().offset() == 1);
  IndexSet empty = IndexSet::full(0);
  CHECK(empty.select({}, 0).value().offset() == 0);
  CHECK(to_string(empty) == "{}");
}

TEST_CASE("select agrees with an explicit index model") {
  std::mt19937_64 rng(0x5eed0004);
  for (int iter = 0; iter < 500; ++iter) {
    IndexSet set = IndexSet::full(testing::uniform(rng, 0, 30));
    Indices model = set.to_vector();
    for (int level = 0; level < 3; ++level) {
      std::vector<IndexRange> picks;
      std::int64_t pos = 0;
      while (pos < set.count()) {
        std::int64_t begin = testing::uniform(rng, pos, set.count());
        std::int64_t end = testing::uniform(rng, begin, set.count());
        picks.push_back({begin, end});
        pos = end + 1;
      }
      Indices expected;
      for (const IndexRange& r : picks) {
        for (std::int64_t p = r.begin; p < r.end; ++p) {
          expected.push_back(model[static_cast<std::size_t>(p)]);
        }
      }
      const std::int64_t anchor = picks.empty() ? set.count() : picks.front().begin;
      set = set.select(picks, anchor).value();
      model = expected;
      CHECK(set.to_vector() == model);
      CHECK(set.count() == static_cast<std::int64_t>(model.size()));
      for (std::size_t k = 1; k < set.ranges().size(); ++k) {
        CHECK(set.ranges()[k - 1].end < set.ranges()[k].begin);
      }
      if (!model.empty()) CHECK(set.offset() == model.front());
    }
  }
}

}  // namespace
}  // namespace dtplan::placement
