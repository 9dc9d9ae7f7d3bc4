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

#include "sweep/sweep_result.h"

namespace dtplan::sweep {

struct ParetoPoint {
  double step_time_us = 0;  // or any time where less is better (a sweep uses time per token)
  std::int64_t memory_bytes = 0;
  bool operator==(const ParetoPoint&) const = default;
};

// Indices of the non-dominated points (rule above), by (step time, memory, index).
// @post every point not in the result is dominated by one in it; no point in it is dominated.
std::vector<std::int32_t> pareto_front(const std::vector<ParetoPoint>& points);

// The best usable row for every memory limit: the Pareto front of the usable rows over (time per
// token, memory per rank) (ranking.h), as indices into result.rows ordered by memory ascending; of
// rows with equal figures only the best-ranked one. Row k is the best configuration for any limit
// from its memory up to the next one's; below the first, nothing fits.
std::vector<std::size_t> best_per_memory(const SweepResult& result);

}  // namespace dtplan::sweep
