#include "sweep/pareto.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>

namespace dtplan::sweep {
namespace {

bool dominates(const ParetoPoint& q, const ParetoPoint& p) {
  return q.step_time_us <= p.step_time_us && q.memory_bytes <= p.memory_bytes && q != p;
}

TEST_CASE("pareto: a handmade set, with a tie and a dominated duplicate") {
  // 0 (100, 50) and 3 (100, 50) tie: both stay. 1 (120, 40) trades time for memory. 2 (130,
  // 60) is dominated by 0. 4 (100, 70) is dominated by 0 (same time, more memory). 5 (90, 90)
  // is the fastest. 6 (200, 40) is dominated by 1 (same memory, slower).
  const std::vector<ParetoPoint> points = {{100, 50}, {120, 40}, {130, 60}, {100, 50},
                                           {100, 70}, {90, 90},  {200, 40}};
  CHECK(pareto_front(points) == std::vector<std::int32_t>{5, 0, 3, 1});
  CHECK(pareto_front({}).empty());
  CHECK(pareto_front({{1, 1}}) == std::vector<std::int32_t>{0});
}

TEST_CASE("pareto: random sets satisfy the definition and come out ordered") {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> v(0, 12);  // small ranges: many ties
  for (int round = 0; round < 300; ++round) {
    std::vector<ParetoPoint> points(static_cast<std::size_t>(v(rng) + 1));
    for (ParetoPoint& p : points) p = {static_cast<double>(v(rng)), v(rng)};
    const std::vector<std::int32_t> front = pareto_front(points);
    for (std::size_t i = 0; i < points.size(); ++i) {
      const bool in =
          std::find(front.begin(), front.end(), static_cast<std::int32_t>(i)) != front.end();
      const bool dominated = std::any_of(points.begin(), points.end(), [&](const ParetoPoint& q) {
        return dominates(q, points[i]);
      });
      CHECK(in == !dominated);
    }
    for (std::size_t k = 1; k < front.size(); ++k) {
      const ParetoPoint& a = points[static_cast<std::size_t>(front[k - 1])];
      const ParetoPoint& b = points[static_cast<std::size_t>(front[k])];
      // Along the front time rises and memory falls (ties keep input order).
      CHECK(a.step_time_us <= b.step_time_us);
      CHECK(a.memory_bytes >= b.memory_bytes);
      if (a == b) CHECK(front[k - 1] < front[k]);
    }
  }
}

TEST_CASE("pareto: best per memory limit, memory ascending, one row for equal figures") {
  SweepResult r;
  const auto row = [](double step, std::int64_t memory, bool fits) {
    SweepRow x;
    x.evaluation.step_time_us = step;
    x.evaluation.memory_bytes_per_rank = memory;
    x.fits_memory = fits;
    return x;
  };
  // Ranked rows: 100 us at 50 B, 100 us at 50 B (a tie), 120 us at 40 B, 130 us at 60 B
  // (dominated), 90 us at 10 B but over the limit (not usable).
  r.rows = {row(100, 50, true), row(100, 50, true), row(120, 40, true), row(130, 60, true),
            row(90, 10, false)};
  CHECK(best_per_memory(r) == std::vector<std::size_t>{2, 0});
  r.rows[0].evaluation.tokens_per_step = 2;  // time per token 50: now the best in time
  r.rows[1].evaluation.tokens_per_step = 2;
  CHECK(best_per_memory(r) == std::vector<std::size_t>{2, 0});
  r.rows[2].evaluation.feasible = false;
  CHECK(best_per_memory(r) == std::vector<std::size_t>{0});
}

}  // namespace
}  // namespace dtplan::sweep
