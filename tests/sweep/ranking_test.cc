#include "sweep/ranking.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>

namespace dtplan::sweep {
namespace {

SweepRow make_row(std::vector<std::int64_t> shape, double step_us, std::int64_t memory,
                  bool fits = true, bool feasible = true) {
  SweepRow r;
  r.mesh.shape = std::move(shape);
  r.evaluation.step_time_us = step_us;
  r.evaluation.compute_us = step_us;
  r.evaluation.memory_bytes_per_rank = memory;
  r.evaluation.feasible = feasible;
  r.fits_memory = fits;
  return r;
}

std::vector<std::vector<std::int64_t>> shapes(const std::vector<SweepRow>& rows) {
  std::vector<std::vector<std::int64_t>> out;
  for (const SweepRow& r : rows) out.push_back(r.mesh.shape);
  return out;
}

TEST_CASE(
    "sweep ranking: step time, then memory, then shape; usable before over-limit before "
    "infeasible") {
  std::vector<SweepRow> rows = {
      make_row({64}, 900, 10),
      make_row({2, 32}, 800, 20),
      make_row({8, 8}, 800, 10),
      make_row({4, 16}, 800, 10),               // ties 8x8 on time and memory: shape decides
      make_row({2, 2, 16}, 100, 50, false),     // fastest but over the limit
      make_row({2, 4, 8}, 50, 0, true, false),  // infeasible
      make_row({4, 4, 4}, 0, 0, true, false),   // infeasible
  };
  rank_rows(rows);
  CHECK(shapes(rows) == std::vector<std::vector<std::int64_t>>{
                            {4, 16}, {8, 8}, {2, 32}, {64}, {2, 2, 16}, {2, 4, 8}, {4, 4, 4}});
  CHECK(rows[0].usable());
  CHECK_FALSE(rows[4].usable());
}

TEST_CASE("sweep ranking: a strict total order, independent of the input order") {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 100; ++trial) {
    std::vector<SweepRow> rows;
    std::uniform_int_distribution<int> small(0, 3);
    for (std::int64_t a = 1; a <= 6; ++a) {
      for (std::int64_t b = 1; b <= 4; ++b) {
        rows.push_back(
            make_row({a, b}, 100.0 * small(rng), small(rng), small(rng) != 0, small(rng) != 0));
      }
    }
    std::vector<SweepRow> ranked = rows;
    rank_rows(ranked);
    CHECK(std::is_sorted(ranked.begin(), ranked.end(), ranks_before));
    for (std::size_t i = 0; i + 1 < ranked.size(); ++i) {
      CHECK(ranks_before(ranked[i], ranked[i + 1]));
      CHECK_FALSE(ranks_before(ranked[i + 1], ranked[i]));
      // Usable rows come first; among rows of one class, step time never decreases.
      if (ranked[i].usable()) CHECK((ranked[i + 1].usable() || !ranked[i + 1].usable()));
      if (!ranked[i].usable()) CHECK_FALSE(ranked[i + 1].usable());
      if (ranked[i].usable() && ranked[i + 1].usable()) {
        CHECK(ranked[i].evaluation.step_time_us <= ranked[i + 1].evaluation.step_time_us);
      }
    }
    std::shuffle(rows.begin(), rows.end(), rng);
    rank_rows(rows);
    CHECK(rows == ranked);
  }
}

}  // namespace
}  // namespace dtplan::sweep
