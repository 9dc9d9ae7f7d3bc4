#pragma once
// Internal to lib/solve: Pareto point lists for memory-constrained elimination.
//
// A point is (bytes per memory row, cost). Under a MemoryModel, point q dominates point p when q
// can be completed wherever p can and costs no more: equal bytes on kExact rows, no more bytes on
// kLowerBetter rows, no fewer on kHigherBetter rows, and cost(q) <= cost(p). Pruning keeps the
// undominated points that can still be completed within every row's [low, high] given the bytes
// the rest of the problem must and can add (total minus absorbed). The kept points come out in a
// canonical order (exact rows, then directional rows best first, then cost, then input index), so
// results never depend on hash or thread order.
//
// Example (one kLowerBetter row, high 10, nothing else to add): points (4 B, 7), (6 B, 5),
// (6 B, 9), (12 B, 1) -> kept (4 B, 7), (6 B, 5); (6 B, 9) is dominated, (12 B, 1) is over budget.

#include <cstdint>
#include <vector>

#include "solve/engine/table.h"

namespace dtplan::solve::detail {

struct PointBuffer {
  std::size_t rows = 0;
  std::vector<double> cost;
  std::vector<std::int64_t> mem;    // rows values per point
  std::vector<std::int32_t> tag_a;  // provenance, caller-defined
  std::vector<std::int32_t> tag_b;

  [[nodiscard]] std::size_t size() const { return cost.size(); }
  void clear() {
    cost.clear();
    mem.clear();
    tag_a.clear();
    tag_b.clear();
  }
  void push(const std::int64_t* m, double c, std::int32_t a, std::int32_t b) {
    cost.push_back(c);
    mem.insert(mem.end(), m, m + rows);
    tag_a.push_back(a);
    tag_b.push_back(b);
  }
};

// Writes into `kept` the indices of `in` that survive pruning, in canonical order.
// `absorbed_min`/`absorbed_max` (rows values each) describe the memory terms already inside the
// points. Points with cost +inf are dropped.
void pareto_prune(const MemoryModel& model, const std::int64_t* absorbed_min,
                  const std::int64_t* absorbed_max, const PointBuffer& in,
                  std::vector<std::int32_t>& kept);

// True when the point's bytes satisfy every row's [low, high] (a complete assignment).
bool within_bounds(const MemoryModel& model, const std::int64_t* mem);

// The least Lagrangian cost c + μ·bytes (model.multiplier) over a table entry's points.
double lagrangian_min(const MemoryModel& model, const Table& table, std::int64_t entry);

// Gap filter without outside information: keeps the kept points whose Lagrangian cost is within
// model.max_reduced_cost of the entry's least (no-op when off).
void gap_filter(const MemoryModel& model, const PointBuffer& points,
                std::vector<std::int32_t>& kept);

// Window filter: keeps the kept points with Lagrangian cost + rest <= model.threshold, where
// `rest` is a lower bound on what the remainder of the problem adds in the relaxation.
void window_filter(const MemoryModel& model, const PointBuffer& points, double rest,
                   std::vector<std::int32_t>& kept);

}  // namespace dtplan::solve::detail
