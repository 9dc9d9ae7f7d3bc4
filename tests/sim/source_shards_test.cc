#include "sim/source_shards.h"

#include <doctest/doctest.h>

#include "placement/owned_indices.h"
#include "support/replay_plans.h"

namespace dtplan::sim {
namespace {

// [begin, end) of a dim of `length`.
placement::IndexSet range(std::int64_t begin, std::int64_t end, std::int64_t length) {
  const placement::IndexRange r{begin, end};
  return placement::IndexSet::full(length).select({&r, 1}, begin).value();
}

TEST_CASE("source shards: global indices (worked example)") {
  // Rows [2, 4) and columns [0, 2) of a [4, 2] tensor: flat 4, 5, 6, 7.
  const std::vector<placement::IndexSet> owned = {range(2, 4, 4), range(0, 2, 2)};
  CHECK(global_flat_indices(owned, std::vector<std::int64_t>{4, 2}) ==
        std::vector<std::int64_t>{4, 5, 6, 7});
  CHECK(owned_counts(owned) == Shape{2, 2});
  // Column 1 of a [3, 4] tensor: 1, 5, 9.
  CHECK(global_flat_indices({range(0, 3, 3), range(1, 2, 4)}, std::vector<std::int64_t>{3, 4}) ==
        std::vector<std::int64_t>{1, 5, 9});
}

TEST_CASE("source shards: every rank's shard holds its contributions") {
  // S(0),P(sum) on (2,2): rank (i, j) holds rows [4i, 4i + 4) and contributor j's values.
  const redist::RedistPlan plan = testing::redist_plan({2, 2}, {"dp", "tp"}, {}, {8, 3},
                                                       core::DType::kF32, "S(0),P(sum)", "R,R");
  const SourceValues values = SourceValues::make(plan, ValueKind::kInteger, 7).value();
  for (std::int64_t i = 0; i < 2; ++i) {
    for (std::int64_t j = 0; j < 2; ++j) {
      const std::vector<std::int64_t> coord{i, j};
      const Tensor t = source_shard(plan, values, coord).value();
      REQUIRE(t.shape() == Shape{4, 3});
      const auto v = t.values<float>();
      for (std::int64_t e = 0; e < 12; ++e) {
        CHECK(v[static_cast<std::size_t>(e)] == values.contribution(12 * i + e, j));
      }
    }
  }
}

}  // namespace
}  // namespace dtplan::sim
