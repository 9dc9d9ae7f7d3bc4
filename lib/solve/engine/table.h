#pragma once
// Internal to lib/solve: the cost tables the elimination engine works on.
//
// A Factor is a function over a list of engine variables (its scope), stored densely row-major
// (the last scope variable varies fastest). A scalar table holds one cost per entry (+inf =
// infeasible). A frontier table serves problems with memory rows: each entry holds the Pareto
// points (bytes per memory row, cost) reachable by the assignments the factor summarises, and an
// empty list means infeasible. Tables are immutable once built and shared between factors
// (the repeated-layer copies share one table with different scopes).
//
// Example: the unary of a node with labels {cost 1, bytes 8} and {cost 3, bytes 2} in one memory
// row is a frontier table with dims {2}: entry 0 = [(8, 1)], entry 1 = [(2, 3)].

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace dtplan::solve::detail {

// How a memory row ranks partial sums (decided once, from the row's reachable range):
// only the high bound can bind -> fewer bytes are never worse; only the low bound -> more bytes
// are never worse; both -> only equal sums are comparable.
enum class RowDirection : std::uint8_t { kLowerBetter, kHigherBetter, kExact };

struct MemoryModel {
  std::vector<std::int64_t> low;
  std::vector<std::int64_t> high;
  std::vector<RowDirection> direction;
  std::vector<std::int64_t> total_min;  // Σ over every memory term of its smallest byte count
  std::vector<std::int64_t> total_max;  // ... largest byte count
  // Lagrangian filters (lagrange.h), off when multiplier is empty. With outside tables (the exact
  // least Lagrangian cost of everything outside a message, per entry) a point p survives when
  // c_p + μ·m_p + outside <= threshold. Without them, when its reduced cost within its entry,
  // (c_p + μ·m_p) - min_q (c_q + μ·m_q), is at most max_reduced_cost.
  std::vector<double> multiplier;
  double threshold = std::numeric_limits<double>::infinity();
  double max_reduced_cost = std::numeric_limits<double>::infinity();
  [[nodiscard]] std::size_t rows() const { return low.size(); }
};

struct Table {
  std::vector<std::int32_t> dims;
  std::int64_t entries = 1;
  std::vector<double> cost;  // scalar tables: one per entry
  bool frontier = false;
  std::vector<std::uint32_t> begin;        // frontier: entries + 1 offsets into the points
  std::vector<double> point_cost;          // frontier: per point
  std::vector<std::int64_t> point_mem;     // frontier: rows values per point
  std::vector<std::int64_t> absorbed_min;  // frontier: per row, Σ min bytes of the terms inside
  std::vector<std::int64_t> absorbed_max;  // frontier: per row, Σ max bytes of the terms inside

  // The cheapest cost of an entry (+inf when infeasible).
  [[nodiscard]] double min_cost(std::int64_t entry) const {
    if (!frontier) return cost[static_cast<std::size_t>(entry)];
    double best = std::numeric_limits<double>::infinity();
    for (std::uint32_t p = begin[entry]; p < begin[entry + 1]; ++p) {
      best = point_cost[p] < best ? point_cost[p] : best;
    }
    return best;
  }
  [[nodiscard]] std::uint32_t points(std::int64_t entry) const {
    return begin[entry + 1] - begin[entry];
  }
};

struct Factor {
  std::shared_ptr<const Table> table;
  std::vector<std::int32_t> scope;  // engine variables, one per table dim
};

// Row-major strides of a table's dims.
std::vector<std::int64_t> table_strides(const std::vector<std::int32_t>& dims);

// The smallest entry cost of a table (+inf when every entry is infeasible).
double table_min_cost(const Table& table);

// A scalar table with the cheapest cost of each entry of `table` (memory dropped).
std::shared_ptr<const Table> scalar_projection(const std::shared_ptr<const Table>& table);

// The table of `factor` with variable `var` fixed to `label`; the scope loses `var`.
// @pre var is in factor.scope.
Factor condition_factor(const Factor& factor, std::int32_t var, std::int32_t label);

}  // namespace dtplan::solve::detail
