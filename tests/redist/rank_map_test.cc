// RankMap: copies share one list (a plan's thousands of redistributions describe one mesh), and
// equality compares the ranks, not the storage.

#include "redist/rank_map.h"

#include <doctest/doctest.h>

#include <vector>

namespace dtplan::redist {
namespace {

TEST_CASE("rank map: a copy shares the list; equality compares ranks") {
  const RankMap a = std::vector<std::int64_t>{4, 5, 6, 7};
  const RankMap b = a;  // NOLINT(performance-unnecessary-copy-initialization): the sharing
  CHECK(b.values().data() == a.values().data());
  CHECK(b.size() == 4);
  CHECK(b[1] == 5);
  CHECK(std::vector<std::int64_t>(b.begin(), b.end()) == std::vector<std::int64_t>{4, 5, 6, 7});
  const RankMap c{4, 5, 6, 7};  // built apart: its own list, the same ranks
  CHECK(c.values().data() != a.values().data());
  CHECK(c == a);
  CHECK_FALSE(RankMap{4, 5, 7, 6} == a);
  CHECK_FALSE(RankMap{4, 5, 6} == a);
}

TEST_CASE("rank map: the default is empty and equals an empty list") {
  const RankMap none;
  CHECK(none.empty());
  CHECK(none.size() == 0);
  CHECK(none.begin() == none.end());
  CHECK(none == RankMap(std::vector<std::int64_t>{}));
  CHECK_FALSE(none == RankMap{0});
}

}  // namespace
}  // namespace dtplan::redist
