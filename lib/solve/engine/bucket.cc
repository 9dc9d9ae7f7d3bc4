#include "solve/engine/bucket.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dtplan::solve::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::int64_t kRunsBetweenChecks = 4096;

std::size_t view_readers(const BucketView& v, std::size_t digit) {
  std::size_t n = 0;
  for (const auto& strides : v.sep_stride) n += strides[digit] != 0 ? 1 : 0;
  return n;
}

// Walks the separator digits other than the run digit in row-major order, keeping each table's
// read offset and the message's write offset of the run's first entry.
class RunWalker {
 public:
  RunWalker(const BucketView& view, std::int64_t run) : view_(view) {
    const std::size_t m = view.sep_dims.size();
    std::int64_t stride = 1;
    out_stride_.assign(m, 0);
    for (std::size_t k = m; k-- > 0;) {
      out_stride_[k] = stride;
      stride *= view.sep_dims[k];
    }
    for (std::size_t k = 0; k < m; ++k) {
      if (static_cast<std::int32_t>(k) != view.run_digit) digits_.push_back(k);
    }
    digit_.assign(digits_.size(), 0);
    for (std::size_t d = digits_.size(); d-- > 0;) {
      const std::int32_t dim = view.sep_dims[digits_[d]];
      digit_[d] = static_cast<std::int32_t>(run % dim);
      run /= dim;
    }
    offset_.assign(view.tables.size(), 0);
    for (std::size_t d = 0; d < digits_.size(); ++d) {
      for (std::size_t j = 0; j < offset_.size(); ++j) {
        offset_[j] += digit_[d] * view.sep_stride[j][digits_[d]];
      }
      out_ += digit_[d] * out_stride_[digits_[d]];
    }
  }

  void next() {
    for (std::size_t d = digits_.size(); d-- > 0;) {
      const std::size_t k = digits_[d];
      ++digit_[d];
      for (std::size_t j = 0; j < offset_.size(); ++j) offset_[j] += view_.sep_stride[j][k];
      out_ += out_stride_[k];
      if (digit_[d] < view_.sep_dims[k]) return;
      for (std::size_t j = 0; j < offset_.size(); ++j) {
        offset_[j] -= view_.sep_dims[k] * view_.sep_stride[j][k];
      }
      out_ -= view_.sep_dims[k] * out_stride_[k];
      digit_[d] = 0;
    }
  }

  [[nodiscard]] const std::vector<std::int64_t>& offsets() const { return offset_; }
  [[nodiscard]] std::int64_t out() const { return out_; }
  [[nodiscard]] std::int64_t run_out_stride() const { return out_stride_[view_.run_digit]; }

 private:
  const BucketView& view_;
  std::vector<std::size_t> digits_;  // separator positions walked, outermost first
  std::vector<std::int32_t> digit_;
  std::vector<std::int64_t> offset_;
  std::vector<std::int64_t> out_stride_;
  std::int64_t out_ = 0;
};

void write_run(const double* best, const double* best_x, std::int32_t run, double* out,
               std::uint16_t* argmin, std::int64_t step) {
  for (std::int32_t i = 0; i < run; ++i) out[i * step] = best[i];
  if (argmin == nullptr) return;
  for (std::int32_t i = 0; i < run; ++i) argmin[i * step] = static_cast<std::uint16_t>(best_x[i]);
}

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
  const std::size_t m = separator.size();
  if (m > 0) {
    std::size_t readers_best = view_readers(v, m - 1);
    v.run_digit = static_cast<std::int32_t>(m - 1);
    for (std::size_t k = m - 1; k-- > 0;) {
      const std::size_t readers = view_readers(v, k);
      if (readers < readers_best) {
        readers_best = readers;
        v.run_digit = static_cast<std::int32_t>(k);
      }
    }
  }
  for (int inner = 0; inner < 2; ++inner) {
    for (std::size_t j = 0; j < v.tables.size(); ++j) {
      const bool reads = v.run_digit >= 0 && v.sep_stride[j][v.run_digit] != 0;
      if (reads == (inner == 1)) v.sum_order.push_back(static_cast<std::int32_t>(j));
    }
    if (inner == 0) v.outer_tables = static_cast<std::int32_t>(v.sum_order.size());
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
  std::fill(a, a + n, 0.0);
  for (const std::int32_t j : view.sum_order) {
    const double* t = view.tables[j]->cost.data() + offsets[j];
    const std::int64_t xs = view.x_stride[j];
    if (xs == 1) {
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

std::int64_t scalar_runs(const BucketView& view) {
  return view.run_digit < 0 ? 1 : view.entries / view.sep_dims[view.run_digit];
}

namespace {

// For each run entry i, the least bx[x] + t[i * is + x] over x and the lowest x attaining it, in
// four lanes; min is exact, and each lane keeps its lowest x, so the lanes change nothing.
void lane_min_run(const double* bx, const double* t, std::int64_t is, std::int32_t n,
                  std::int32_t run, double* b, double* bxs) {
  for (std::int32_t i = 0; i < run; ++i) {
    const double* ti = t + i * is;
    double m[4] = {kInf, kInf, kInf, kInf};
    std::int32_t mx[4] = {0, 0, 0, 0};
    std::int32_t x = 0;
    for (; x + 4 <= n; x += 4) {
      for (int l = 0; l < 4; ++l) {
        const double v = bx[x + l] + ti[x + l];
        if (v < m[l]) {
          m[l] = v;
          mx[l] = x + l;
        }
      }
    }
    for (; x < n; ++x) {
      const double v = bx[x] + ti[x];
      if (v < m[0]) {
        m[0] = v;
        mx[0] = x;
      }
    }
    int lane = 0;
    for (int l = 1; l < 4; ++l) {
      if (m[l] < m[lane] || (m[l] == m[lane] && mx[l] < mx[lane])) lane = l;
    }
    b[i] = m[lane];
    bxs[i] = mx[lane];
  }
}

}  // namespace

bool scalar_message(const BucketView& view, std::int64_t begin, std::int64_t end, double* out,
                    std::uint16_t* argmin, const std::function<bool()>& late) {
  const std::int32_t n = view.x_dim;
  std::vector<double> base(static_cast<std::size_t>(n));
  if (view.run_digit < 0) {
    if (begin < end) {
      std::int32_t x = 0;
      out[0] = scalar_entry(view, std::vector<std::int64_t>(view.tables.size(), 0), base, &x);
      if (argmin != nullptr) argmin[0] = static_cast<std::uint16_t>(x);
    }
    return true;
  }
  const std::int32_t run = view.sep_dims[view.run_digit];
  std::vector<double> sum(static_cast<std::size_t>(run));
  std::vector<double> best(static_cast<std::size_t>(run));
  std::vector<double> best_x(static_cast<std::size_t>(run));  // as doubles: blends vectorise
  RunWalker walk(view, begin);
  const std::int64_t out_step = walk.run_out_stride();
  const auto first_inner = view.sum_order.begin() + view.outer_tables;
  const bool one_inner = std::next(first_inner) == view.sum_order.end();
  double* b = best.data();
  double* bxs = best_x.data();
  // Keeps the least value and the lowest x attaining it (x ascends, so strictly less).
  auto keep = [&](std::int32_t i, double v, double x) {
    const bool less = v < b[i];
    bxs[i] = less ? x : bxs[i];
    b[i] = less ? v : b[i];
  };
  for (std::int64_t r = begin; r < end; ++r, walk.next()) {
    if ((r - begin) % kRunsBetweenChecks == 0 && late()) return false;
    const std::vector<std::int64_t>& off = walk.offsets();
    std::fill(base.begin(), base.end(), 0.0);
    for (auto it = view.sum_order.begin(); it != first_inner; ++it) {
      const double* t = view.tables[*it]->cost.data() + off[*it];
      const std::int64_t xs = view.x_stride[*it];
      for (std::int32_t x = 0; x < n; ++x) base[x] += t[x * xs];
    }
    if (one_inner && view.x_stride[*first_inner] == 1 &&
        view.sep_stride[*first_inner][view.run_digit] != 1) {
      // One table reads the run digit, contiguous in x: a min-reduction over x per run entry.
      lane_min_run(base.data(), view.tables[*first_inner]->cost.data() + off[*first_inner],
                   view.sep_stride[*first_inner][view.run_digit], n, run, b, bxs);
      write_run(b, bxs, run, out + walk.out(), argmin != nullptr ? argmin + walk.out() : nullptr,
                out_step);
      continue;
    }
    std::fill(best.begin(), best.end(), kInf);
    std::fill(best_x.begin(), best_x.end(), 0.0);
    for (std::int32_t x = 0; x < n; ++x) {
      const double bx = base[x];
      const auto fx = static_cast<double>(x);
      auto it = first_inner;
      const double* t = view.tables[*it]->cost.data() + off[*it] + x * view.x_stride[*it];
      const std::int64_t is = view.sep_stride[*it][view.run_digit];
      if (one_inner) {  // one table reads the run digit: fused
        if (is == 1) {
          for (std::int32_t i = 0; i < run; ++i) keep(i, bx + t[i], fx);
        } else {
          for (std::int32_t i = 0; i < run; ++i) keep(i, bx + t[i * is], fx);
        }
        continue;
      }
      for (std::int32_t i = 0; i < run; ++i) sum[i] = bx + t[i * is];
      for (++it; it != view.sum_order.end(); ++it) {
        const double* u = view.tables[*it]->cost.data() + off[*it] + x * view.x_stride[*it];
        const std::int64_t us = view.sep_stride[*it][view.run_digit];
        for (std::int32_t i = 0; i < run; ++i) sum[i] += u[i * us];
      }
      for (std::int32_t i = 0; i < run; ++i) keep(i, sum[i], fx);
    }
    write_run(b, bxs, run, out + walk.out(), argmin != nullptr ? argmin + walk.out() : nullptr,
              out_step);
  }
  return true;
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
