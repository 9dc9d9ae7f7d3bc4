#include "solve/engine/frontier.h"

#include <algorithm>
#include <numeric>

namespace dtplan::solve::detail {

namespace {

// Directional coordinate of row r, oriented so that smaller is better.
std::int64_t oriented(const MemoryModel& model, std::size_t r, std::int64_t bytes) {
  return model.direction[r] == RowDirection::kHigherBetter ? -bytes : bytes;
}

}  // namespace

bool within_bounds(const MemoryModel& model, const std::int64_t* mem) {
  for (std::size_t r = 0; r < model.rows(); ++r) {
    if (mem[r] < model.low[r] || mem[r] > model.high[r]) return false;
  }
  return true;
}

void pareto_prune(const MemoryModel& model, const std::int64_t* absorbed_min,
                  const std::int64_t* absorbed_max, const PointBuffer& in,
                  std::vector<std::int32_t>& kept) {
  const std::size_t rows = model.rows();
  kept.clear();
  std::vector<std::int32_t> order;
  order.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in.cost[i] == std::numeric_limits<double>::infinity()) continue;
    const std::int64_t* m = &in.mem[i * rows];
    bool ok = true;
    for (std::size_t r = 0; r < rows && ok; ++r) {
      ok = m[r] + (model.total_min[r] - absorbed_min[r]) <= model.high[r] &&
           m[r] + (model.total_max[r] - absorbed_max[r]) >= model.low[r];
    }
    if (ok) order.push_back(static_cast<std::int32_t>(i));
  }
  std::vector<std::size_t> exact_rows, dir_rows;
  for (std::size_t r = 0; r < rows; ++r) {
    (model.direction[r] == RowDirection::kExact ? exact_rows : dir_rows).push_back(r);
  }
  auto less = [&](std::int32_t a, std::int32_t b) {
    const std::int64_t* ma = &in.mem[static_cast<std::size_t>(a) * rows];
    const std::int64_t* mb = &in.mem[static_cast<std::size_t>(b) * rows];
    for (std::size_t r : exact_rows) {
      if (ma[r] != mb[r]) return ma[r] < mb[r];
    }
    for (std::size_t r : dir_rows) {
      const std::int64_t xa = oriented(model, r, ma[r]), xb = oriented(model, r, mb[r]);
      if (xa != xb) return xa < xb;
    }
    if (in.cost[a] != in.cost[b]) return in.cost[a] < in.cost[b];
    return a < b;
  };
  std::sort(order.begin(), order.end(), less);
  auto same_exact = [&](std::int32_t a, std::int32_t b) {
    for (std::size_t r : exact_rows) {
      if (in.mem[a * rows + r] != in.mem[b * rows + r]) return false;
    }
    return true;
  };
  std::size_t group_start = 0;  // first kept index of the current exact group
  double best = 0;              // single directional row: best cost so far in the group
  for (std::int32_t p : order) {
    if (kept.size() > group_start && !same_exact(kept[group_start], p)) group_start = kept.size();
    const bool first = kept.size() == group_start;
    if (dir_rows.size() <= 1) {
      // Sorted by (bytes, cost): p survives iff it is strictly cheaper than everything before it.
      if (first || in.cost[p] < best) {
        kept.push_back(p);
        best = in.cost[p];
      }
      continue;
    }
    bool dominated = false;
    for (std::size_t k = group_start; k < kept.size() && !dominated; ++k) {
      const std::int32_t q = kept[k];
      bool le = in.cost[q] <= in.cost[p];
      for (std::size_t r : dir_rows) {
        le = le &&
             oriented(model, r, in.mem[q * rows + r]) <= oriented(model, r, in.mem[p * rows + r]);
      }
      dominated = le;
    }
    if (!dominated) kept.push_back(p);
  }
}

namespace {

// Lagrangian cost c + μ·bytes of point p (model.multiplier).
double lagrangian(const MemoryModel& model, const PointBuffer& points, std::int32_t p) {
  const std::size_t rows = model.rows();
  double v = points.cost[p];
  for (std::size_t r = 0; r < rows; ++r) {
    v += model.multiplier[r] *
         static_cast<double>(points.mem[static_cast<std::size_t>(p) * rows + r]);
  }
  return v;
}

}  // namespace

double lagrangian_min(const MemoryModel& model, const Table& table, std::int64_t entry) {
  const std::size_t rows = model.rows();
  double best = std::numeric_limits<double>::infinity();
  for (std::uint32_t p = table.begin[entry]; p < table.begin[entry + 1]; ++p) {
    double v = table.point_cost[p];
    for (std::size_t r = 0; r < rows; ++r) {
      v += model.multiplier[r] * static_cast<double>(table.point_mem[p * rows + r]);
    }
    best = std::min(best, v);
  }
  return best;
}

void gap_filter(const MemoryModel& model, const PointBuffer& points,
                std::vector<std::int32_t>& kept) {
  if (model.multiplier.empty() || kept.empty() ||
      model.max_reduced_cost == std::numeric_limits<double>::infinity()) {
    return;
  }
  double least = std::numeric_limits<double>::infinity();
  for (std::int32_t p : kept) least = std::min(least, lagrangian(model, points, p));
  std::size_t out = 0;
  for (std::int32_t p : kept) {
    if (lagrangian(model, points, p) - least <= model.max_reduced_cost) kept[out++] = p;
  }
  kept.resize(out);
}

void window_filter(const MemoryModel& model, const PointBuffer& points, double rest,
                   std::vector<std::int32_t>& kept) {
  std::size_t out = 0;
  for (std::int32_t p : kept) {
    if (lagrangian(model, points, p) + rest <= model.threshold) kept[out++] = p;
  }
  kept.resize(out);
}

}  // namespace dtplan::solve::detail
