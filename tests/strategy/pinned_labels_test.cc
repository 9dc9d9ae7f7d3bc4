#include "strategy/pinned_labels.h"

#include <doctest/doctest.h>

namespace dtplan::strategy {

namespace {

using Lists = std::vector<std::vector<std::int32_t>>;

}  // namespace

TEST_CASE("pinned_labels: a node keeps the strategies its pins allow; a free node keeps all") {
  const std::vector<std::vector<char>> allowed = {{1, 1, 1}, {0, 1, 0, 1}, {1, 0}};
  const auto kept = pinned_labels(allowed, {});
  REQUIRE(kept.has_value());
  CHECK(*kept == Lists{{}, {1, 3}, {0}});
}

TEST_CASE("pinned_labels: a repeat position keeps what some block's pins allow") {
  // Two blocks of two nodes: (0, 1) and (2, 3); node 4 is outside the group.
  const std::vector<std::vector<char>> allowed = {{1, 0, 0}, {0, 1}, {0, 0, 1}, {0, 1}, {0, 1, 1}};
  const std::vector<solve::RepeatGroup> repeats = {{{{0, 1}, {2, 3}}}};
  const auto kept = pinned_labels(allowed, repeats);
  REQUIRE(kept.has_value());
  CHECK(*kept == Lists{{0, 2}, {1}, {0, 2}, {1}, {1, 2}});
}

TEST_CASE("pinned_labels: every label stays where a node allows none or the blocks are unalike") {
  CHECK_FALSE(pinned_labels({{1, 0}, {0, 0}}, {}).has_value());
  const std::vector<solve::RepeatGroup> repeats = {{{{0}, {1}}}};
  CHECK_FALSE(pinned_labels({{1, 0}, {1, 0, 0}}, repeats).has_value());
}

}  // namespace dtplan::strategy
