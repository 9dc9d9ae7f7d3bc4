#include "sweep/pareto.h"

#include <algorithm>

#include "sweep/ranking.h"

namespace dtplan::sweep {

namespace {

bool dominates(const ParetoPoint& q, const ParetoPoint& p) {
  return q.step_time_us <= p.step_time_us && q.memory_bytes <= p.memory_bytes &&
         (q.step_time_us < p.step_time_us || q.memory_bytes < p.memory_bytes);
}

}  // namespace

std::vector<std::int32_t> pareto_front(const std::vector<ParetoPoint>& points) {
  // Quadratic: a sweep has at most a few hundred meshes.
  std::vector<std::int32_t> front;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const bool dominated = std::any_of(points.begin(), points.end(), [&](const ParetoPoint& q) {
      return dominates(q, points[i]);
    });
    if (!dominated) front.push_back(static_cast<std::int32_t>(i));
  }
  std::sort(front.begin(), front.end(), [&](std::int32_t a, std::int32_t b) {
    const ParetoPoint& p = points[static_cast<std::size_t>(a)];
    const ParetoPoint& q = points[static_cast<std::size_t>(b)];
    if (p.step_time_us != q.step_time_us) return p.step_time_us < q.step_time_us;
    if (p.memory_bytes != q.memory_bytes) return p.memory_bytes < q.memory_bytes;
    return a < b;
  });
  return front;
}

std::vector<std::size_t> best_per_memory(const SweepResult& result) {
  std::vector<std::size_t> usable;
  std::vector<ParetoPoint> points;
  for (std::size_t i = 0; i < result.rows.size(); ++i) {
    const SweepRow& row = result.rows[i];
    if (!row.usable()) continue;
    usable.push_back(i);
    points.push_back({time_per_token(row.evaluation), row.evaluation.memory_bytes_per_rank});
  }
  std::vector<std::size_t> out;
  for (std::int32_t k : pareto_front(points)) out.push_back(usable[static_cast<std::size_t>(k)]);
  std::sort(out.begin(), out.end(), [&](std::size_t a, std::size_t b) {
    const std::int64_t ma = result.rows[a].evaluation.memory_bytes_per_rank;
    const std::int64_t mb = result.rows[b].evaluation.memory_bytes_per_rank;
    return ma != mb ? ma < mb : a < b;
  });
  // Of configurations with equal figures, the best-ranked one stands for them.
  const auto same = [&](std::size_t a, std::size_t b) {
    const MeshEvaluation& x = result.rows[a].evaluation;
    const MeshEvaluation& y = result.rows[b].evaluation;
    return x.memory_bytes_per_rank == y.memory_bytes_per_rank &&
           time_per_token(x) == time_per_token(y);
  };
  std::vector<std::size_t> kept;
  for (std::size_t i : out) {
    if (kept.empty() || !same(kept.back(), i)) kept.push_back(i);
  }
  return kept;
}

}  // namespace dtplan::sweep
