#include "replay/comm_split.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>

namespace dtplan::replay {
namespace {

// Random disjoint groups of random sizes over a shuffled world; some ranks left out.
std::vector<Group> random_layout(std::int64_t world, std::mt19937_64& rng) {
  Group ranks(static_cast<std::size_t>(world));
  for (std::int64_t r = 0; r < world; ++r) ranks[static_cast<std::size_t>(r)] = r;
  std::shuffle(ranks.begin(), ranks.end(), rng);
  std::vector<Group> groups;
  std::size_t i = 0;
  while (i < ranks.size()) {
    const std::size_t size = 1 + rng() % 4;
    Group g(ranks.begin() + static_cast<std::ptrdiff_t>(i),
            ranks.begin() + static_cast<std::ptrdiff_t>(std::min(ranks.size(), i + size)));
    i += size;
    if (rng() % 5 != 0) groups.push_back(std::move(g));  // else these ranks are in no group
  }
  if (groups.empty()) groups.push_back({ranks[0]});
  return groups;
}

TEST_CASE("comm split: worked examples") {
  CHECK(canonical_groups({{2, 3}, {0, 1}}) == std::vector<Group>{{0, 1}, {2, 3}});
  CHECK(canonical_groups({{3, 2}, {1, 0}}) == std::vector<Group>{{1, 0}, {3, 2}});
  CHECK(split_args({{0, 1}, {3, 2}}, 2) == SplitArgs{1, 1});
  CHECK(split_args({{0, 1}, {3, 2}}, 3) == SplitArgs{1, 0});
  CHECK(split_args({{0, 1}, {3, 2}}, 0) == SplitArgs{0, 0});
  CHECK_FALSE(split_args({{0, 1}}, 5).color.has_value());
  CHECK(groups_string({{0, 1}, {2, 3}}) == "[[0,1],[2,3]]");
}

TEST_CASE("comm split: colors and keys reproduce every group in group-rank order") {
  std::mt19937_64 rng(314159);
  for (int iter = 0; iter < 300; ++iter) {
    const auto world = static_cast<std::int64_t>(1 + rng() % 24);
    const std::vector<Group> groups = random_layout(world, rng);
    const std::vector<Group> canonical = canonical_groups(groups);
    CAPTURE(groups_string(groups));
    // The canonical list is sorted, holds the same groups, and is order-independent.
    CHECK(std::is_sorted(canonical.begin(), canonical.end()));
    CHECK(std::multiset<Group>(groups.begin(), groups.end()) ==
          std::multiset<Group>(canonical.begin(), canonical.end()));
    std::vector<Group> shuffled = groups;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    CHECK(canonical_groups(shuffled) == canonical);
    // What MPI_Comm_split would build from every rank's (color, key): the canonical groups.
    std::vector<std::vector<std::pair<int, std::int64_t>>> built(canonical.size());
    for (std::int64_t r = 0; r < world; ++r) {
      const SplitArgs a = split_args(canonical, r);
      const bool member = std::any_of(groups.begin(), groups.end(), [&](const Group& g) {
        return std::find(g.begin(), g.end(), r) != g.end();
      });
      REQUIRE(a.color.has_value() == member);
      if (a.color) built[static_cast<std::size_t>(*a.color)].emplace_back(a.key, r);
    }
    for (std::size_t c = 0; c < canonical.size(); ++c) {
      std::sort(built[c].begin(), built[c].end());  // communicator rank order = key order
      Group ordered;
      for (const auto& [key, rank] : built[c]) ordered.push_back(rank);
      CHECK(ordered == canonical[c]);
    }
  }
}

TEST_CASE("comm split: the cache finds a split by its canonical list and releases all") {
  CommCache<int> cache;
  CHECK(cache.find(canonical_groups({{0, 1}, {2, 3}})) == nullptr);
  cache.insert(canonical_groups({{2, 3}, {0, 1}}), 7);
  cache.insert(canonical_groups({{0, 2}, {1, 3}}), 9);
  REQUIRE(cache.find(canonical_groups({{0, 1}, {2, 3}})) != nullptr);
  CHECK(*cache.find(canonical_groups({{0, 1}, {2, 3}})) == 7);
  CHECK(cache.find(canonical_groups({{1, 0}, {2, 3}})) == nullptr);  // group order matters
  CHECK(cache.size() == 2);
  std::vector<int> released;
  cache.release_all([&](int& h) { released.push_back(h); });
  CHECK(released == std::vector<int>{7, 9});  // canonical-list order
  CHECK(cache.size() == 0);
  CHECK(cache.find(canonical_groups({{0, 1}, {2, 3}})) == nullptr);
}

}  // namespace
}  // namespace dtplan::replay
