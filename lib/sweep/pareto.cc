#include "sweep/pareto.h"

#include <algorithm>

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

}  // namespace dtplan::sweep
