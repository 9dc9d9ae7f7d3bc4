// Pareto pruning: frontier.h's worked example and each row direction.

#include "solve/engine/frontier.h"

#include <doctest/doctest.h>

#include <limits>

namespace dtplan::solve::detail {
namespace {

MemoryModel one_row(RowDirection d, std::int64_t low, std::int64_t high) {
  MemoryModel m;
  m.low = {low};
  m.high = {high};
  m.direction = {d};
  m.total_min = {0};
  m.total_max = {0};
  return m;
}

PointBuffer points(std::vector<std::pair<std::int64_t, double>> list, std::size_t rows = 1) {
  PointBuffer b;
  b.rows = rows;
  for (auto [m, c] : list) b.push(&m, c, 0, 0);
  return b;
}

std::vector<std::int32_t> prune(const MemoryModel& m, const PointBuffer& b) {
  std::vector<std::int32_t> kept;
  const std::int64_t zero = 0;
  pareto_prune(m, &zero, &zero, b, kept);
  return kept;
}

TEST_CASE("pareto_prune: frontier.h's example") {
  const MemoryModel m = one_row(RowDirection::kLowerBetter, 0, 10);
  // (4 B, 7), (6 B, 5), (6 B, 9), (12 B, 1): (6, 9) dominated, (12, 1) over budget.
  CHECK(prune(m, points({{4, 7}, {6, 5}, {6, 9}, {12, 1}})) == std::vector<std::int32_t>{0, 1});
  // Duplicates: the first stays; +inf costs go.
  CHECK(prune(m, points({{5, 3}, {5, 3}, {2, std::numeric_limits<double>::infinity()}})) ==
        std::vector<std::int32_t>{0});
}

TEST_CASE("pareto_prune: directions and completion bounds") {
  // Only the low bound can bind: more bytes are never worse.
  MemoryModel up = one_row(RowDirection::kHigherBetter, 5, 100);
  CHECK(prune(up, points({{4, 1}, {6, 3}, {8, 2}})) == std::vector<std::int32_t>{2});
  // Both bounds: only equal sums compare.
  MemoryModel both = one_row(RowDirection::kExact, 0, 100);
  CHECK(prune(both, points({{4, 1}, {6, 3}, {4, 2}})) == std::vector<std::int32_t>{0, 1});
  // The rest of the problem must still add 3 to 5 bytes: 8 + 3 > 10 cannot fit.
  MemoryModel rest = one_row(RowDirection::kLowerBetter, 0, 10);
  rest.total_min = {3};
  rest.total_max = {5};
  CHECK(prune(rest, points({{7, 1}, {8, 0}})) == std::vector<std::int32_t>{0});
  CHECK(within_bounds(rest, std::vector<std::int64_t>{10}.data()));
  CHECK_FALSE(within_bounds(rest, std::vector<std::int64_t>{11}.data()));
}

TEST_CASE("pareto_prune: two rows keep every undominated point") {
  MemoryModel m;
  m.low = {0, 0};
  m.high = {100, 100};
  m.direction = {RowDirection::kLowerBetter, RowDirection::kLowerBetter};
  m.total_min = m.total_max = {0, 0};
  PointBuffer b;
  b.rows = 2;
  const std::int64_t p0[] = {1, 5}, p1[] = {5, 1}, p2[] = {5, 5}, p3[] = {2, 6};
  b.push(p0, 3, 0, 0);
  b.push(p1, 3, 0, 0);
  b.push(p2, 3, 0, 0);  // dominated by both others
  b.push(p3, 2, 0, 0);  // cheaper: kept
  std::vector<std::int32_t> kept;
  const std::int64_t zero[] = {0, 0};
  pareto_prune(m, zero, zero, b, kept);
  CHECK(kept == std::vector<std::int32_t>{0, 3, 1});
}

}  // namespace
}  // namespace dtplan::solve::detail
