#pragma once
// The Pareto front of a sweep: the meshes no other mesh beats on both step time and peak memory
// per rank. A point q dominates p when q.step_time_us <= p.step_time_us and q.memory_bytes <=
// p.memory_bytes with at least one of the two strictly smaller; the front is every point no
// point dominates. Ties, by this written rule: points with equal figures do not dominate each
// other, so identical points are all on the front. The front is returned ordered by step time,
// then memory, then input index (the order its line is drawn in).
//
//   pareto_front({{100, 50}, {120, 40}, {130, 60}, {100, 50}})  ->  {0, 3, 1}
//   // (130, 60) is dominated by (100, 50); the two (100, 50) tie and both stay.

#include <cstdint>
#include <vector>

namespace dtplan::sweep {

struct ParetoPoint {
  double step_time_us = 0;
  std::int64_t memory_bytes = 0;
  bool operator==(const ParetoPoint&) const = default;
};

// Indices of the non-dominated points (rule above), by (step time, memory, index).
// @post every point not in the result is dominated by one in it; no point in it is dominated.
std::vector<std::int32_t> pareto_front(const std::vector<ParetoPoint>& points);

}  // namespace dtplan::sweep
