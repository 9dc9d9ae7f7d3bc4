#include "solve/bucket.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dtplan::solve::detail {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

BucketView make_view(const std::vector<const Factor*>& factors, std::int32_t x, std::int32_t x_dim,
                     const std::vector<std::int32_t>& separator,
                     const std::vector<std::int32_t>& sep_dims, std::size_t rows) {
  BucketView v;
  v.x_dim = x_dim;
  v.sep_dims = sep_dims;
  for (std::int32_t d : sep_dims) v.entries *= d;
  v.absorbed_min.assign(rows, 0);
  v.absorbed_max.assign(rows, 0);
  for (const Factor* f : factors) {
    const Table& t = *f->table;
    const std::vector<std::int64_t> strides = table_strides(t.dims);
    v.tables.push_back(&t);
    v.x_stride.push_back(0);
    v.sep_stride.emplace_back(separator.size(), 0);
    for (std::size_t i = 0; i < f->scope.size(); ++i) {
      if (f->scope[i] == x) {
        v.x_stride.back() = strides[i];
        continue;
      }
      const auto k =
          std::lower_bound(separator.begin(), separator.end(), f->scope[i]) - separator.begin();
      v.sep_stride.back()[static_cast<std::size_t>(k)] = strides[i];
    }
    if (t.frontier) {
      v.frontier = true;
      for (std::size_t r = 0; r < rows; ++r) {
        v.absorbed_min[r] += t.absorbed_min[r];
        v.absorbed_max[r] += t.absorbed_max[r];
      }
    }
  }
  return v;
}

Odometer::Odometer(const BucketView& view, std::int64_t entry)
    : view_(view), digit_(view.sep_dims.size(), 0), offset_(view.tables.size(), 0) {
  for (std::size_t k = view.sep_dims.size(); k-- > 0;) {
    digit_[k] = static_cast<std::int32_t>(entry % view.sep_dims[k]);
    entry /= view.sep_dims[k];
  }
  for (std::size_t j = 0; j < view.tables.size(); ++j) {
    for (std::size_t k = 0; k < digit_.size(); ++k) offset_[j] += digit_[k] * view.sep_stride[j][k];
  }
}

void Odometer::next() {
  for (std::size_t k = digit_.size(); k-- > 0;) {
    ++digit_[k];
    for (std::size_t j = 0; j < offset_.size(); ++j) offset_[j] += view_.sep_stride[j][k];
    if (digit_[k] < view_.sep_dims[k]) return;
    for (std::size_t j = 0; j < offset_.size(); ++j) {
      offset_[j] -= view_.sep_dims[k] * view_.sep_stride[j][k];
    }
    digit_[k] = 0;
  }
}

double scalar_entry(const BucketView& view, const std::vector<std::int64_t>& offsets,
                    std::vector<double>& acc, std::int32_t* argmin) {
  const std::int32_t n = view.x_dim;
  double* a = acc.data();
  if (view.tables.empty()) {
    std::fill(a, a + n, 0.0);
  }
  for (std::size_t j = 0; j < view.tables.size(); ++j) {
    const double* t = view.tables[j]->cost.data() + offsets[j];
    const std::int64_t xs = view.x_stride[j];
    if (j == 0) {
      if (xs == 1) {
        std::copy(t, t + n, a);
      } else {
        for (std::int32_t x = 0; x < n; ++x) a[x] = t[x * xs];
      }
    } else if (xs == 1) {
      for (std::int32_t x = 0; x < n; ++x) a[x] += t[x];
    } else {
      for (std::int32_t x = 0; x < n; ++x) a[x] += t[x * xs];
    }
  }
  double best = kInf;
  std::int32_t arg = 0;
  for (std::int32_t x = 0; x < n; ++x) {
    if (a[x] < best) {
      best = a[x];
      arg = x;
    }
  }
  if (argmin != nullptr) *argmin = arg;
  return best;
}

void frontier_entry(const BucketView& view, const MemoryModel& memory,
                    const std::vector<std::int64_t>& offsets, double outside, FrontierScratch& s,
                    std::vector<double>& cost, std::vector<std::int64_t>& mem,
                    FrontierHistory* history) {
  const std::size_t rows = memory.rows();
  // Window filter (table.h): a partial point survives when its Lagrangian cost, plus the least the
  // rest of this bucket and the outside of the message can add, stays within the threshold.
  const bool window = !std::isnan(outside) && !memory.multiplier.empty() && memory.threshold < kInf;
  s.zero.assign(rows, 0);
  PointBuffer& cand = history != nullptr ? history->candidates : s.candidates;
  cand.rows = rows;
  cand.clear();
  if (history != nullptr) history->steps.assign(static_cast<std::size_t>(view.x_dim), {});
  std::vector<std::int64_t> sum(rows);
  std::vector<double> rest(view.tables.size() + 1, 0);  // suffix sums of Lagrangian minima
  for (std::int32_t x = 0; x < view.x_dim; ++x) {
    double c = 0;
    for (std::size_t j = 0; j < view.tables.size(); ++j) {
      if (!view.tables[j]->frontier) c += view.tables[j]->cost[offsets[j] + x * view.x_stride[j]];
    }
    if (c == kInf) continue;
    if (window) {
      for (std::size_t j = view.tables.size(); j-- > 0;) {
        const Table& t = *view.tables[j];
        rest[j] = rest[j + 1] +
                  (t.frontier ? lagrangian_min(memory, t, offsets[j] + x * view.x_stride[j]) : 0);
      }
      if (!(c + rest[0] + outside <= memory.threshold)) continue;
    }
    s.cur.rows = s.next.rows = rows;
    s.cur.clear();
    s.cur.push(s.zero.data(), c, 0, 0);
    s.amin.assign(rows, 0);
    s.amax.assign(rows, 0);
    bool ok = true;
    for (std::size_t j = 0; j < view.tables.size() && ok; ++j) {
      const Table& t = *view.tables[j];
      if (!t.frontier) continue;
      const std::int64_t entry = offsets[j] + x * view.x_stride[j];
      const std::uint32_t b = t.begin[entry], e = t.begin[entry + 1];
      for (std::size_t r = 0; r < rows; ++r) {
        s.amin[r] += t.absorbed_min[r];
        s.amax[r] += t.absorbed_max[r];
      }
      s.next.clear();
      for (std::size_t p = 0; p < s.cur.size(); ++p) {
        for (std::uint32_t q = b; q < e; ++q) {
          for (std::size_t r = 0; r < rows; ++r)
            sum[r] = s.cur.mem[p * rows + r] + t.point_mem[q * rows + r];
          s.next.push(sum.data(), s.cur.cost[p] + t.point_cost[q], static_cast<std::int32_t>(p),
                      static_cast<std::int32_t>(q - b));
        }
      }
      pareto_prune(memory, s.amin.data(), s.amax.data(), s.next, s.kept);
      if (window) window_filter(memory, s.next, rest[j + 1] + outside, s.kept);
      s.cur.clear();
      for (std::int32_t k : s.kept) {
        s.cur.push(&s.next.mem[static_cast<std::size_t>(k) * rows], s.next.cost[k], s.next.tag_a[k],
                   s.next.tag_b[k]);
      }
      if (history != nullptr) history->steps[x].push_back(s.cur);
      ok = s.cur.size() > 0;
    }
    if (!ok) continue;
    for (std::size_t p = 0; p < s.cur.size(); ++p) {
      cand.push(&s.cur.mem[p * rows], s.cur.cost[p], x, static_cast<std::int32_t>(p));
    }
  }
  std::vector<std::int32_t>& kept = history != nullptr ? history->kept : s.kept;
  pareto_prune(memory, view.absorbed_min.data(), view.absorbed_max.data(), cand, kept);
  if (window) {
    window_filter(memory, cand, outside, kept);
  } else {
    gap_filter(memory, cand, kept);
  }
  for (std::int32_t k : kept) {
    cost.push_back(cand.cost[k]);
    mem.insert(mem.end(), cand.mem.begin() + static_cast<std::ptrdiff_t>(k * rows),
               cand.mem.begin() + static_cast<std::ptrdiff_t>((k + 1) * rows));
  }
}

}  // namespace dtplan::solve::detail
