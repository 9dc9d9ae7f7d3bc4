#include "solve/memory/lagrange.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace dtplan::solve::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kBracketSteps = 24;  // μ grows 4x per step: 4^24 outweighs any cost scale
constexpr int kMaxSteps = 60;      // breakpoints per line search

struct Eval {
  bool ok = false;
  double lagrangian = 0;  // min_y cost + μ·bytes
  double cost = 0;
  std::vector<std::int64_t> mem;
  std::vector<std::int32_t> y;
};

class Dual {
 public:
  Dual(const EngineProblem& full, const EngineSolve& solve, Clock::time_point deadline,
       const EngineSolution* relaxed)
      : full_(full), solve_(solve), deadline_(deadline), relaxed_(relaxed) {
    const std::size_t rows = full.memory.rows();
    out_.multiplier.assign(rows, 0);
  }

  DualResult run() {
    std::vector<double> mu(full_.memory.rows(), 0);
    // Coordinate ascent: one sweep for one row, two when rows interact.
    for (int sweep = 0; sweep < (mu.size() == 1 ? 1 : 2); ++sweep) {
      bool moved = false;
      for (std::size_t r = 0; r < mu.size() && !out_.stopped; ++r) {
        moved = line_search(mu, r) || moved;
      }
      if (!moved) break;
    }
    return std::move(out_);
  }

 private:
  bool violates(const Eval& e, std::size_t r, int side) const {
    return side > 0 ? e.mem[r] > full_.memory.high[r] : e.mem[r] < full_.memory.low[r];
  }

  Eval evaluate(const std::vector<double>& mu) {
    Eval e;
    if (Clock::now() > deadline_) {
      out_.stopped = true;
      return e;
    }
    const std::size_t rows = full_.memory.rows();
    const bool at_zero = std::all_of(mu.begin(), mu.end(), [](double m) { return m == 0; });
    EngineSolution fresh;
    if (relaxed_ == nullptr || !at_zero) {
      ++out_.evaluations;
      fresh = solve_(lagrangian_problem(full_, mu));
    }
    const EngineSolution& s = relaxed_ != nullptr && at_zero ? *relaxed_ : fresh;
    if (!s.found || !s.complete) {
      out_.stopped = out_.stopped || !s.complete;
      return e;
    }
    e.ok = true;
    e.lagrangian = s.value_us;
    e.y = s.assignment;
    e.cost = labelling_cost(full_, e.y);
    e.mem.assign(rows, 0);
    for (std::int32_t id : full_.unary) {
      const Table& t = *full_.factors[id].table;
      if (!t.frontier) continue;
      const std::uint32_t point = t.begin[e.y[full_.factors[id].scope[0]]];
      for (std::size_t r = 0; r < rows; ++r) e.mem[r] += t.point_mem[point * rows + r];
    }
    record(mu, e);
    return e;
  }

  void record(const std::vector<double>& mu, const Eval& e) {
    const double bound = e.lagrangian - multiplier_offset(full_.memory, mu);
    if (bound > out_.lower_bound_us) {
      out_.lower_bound_us = bound;
      out_.multiplier = mu;
    }
    bool feasible = true;
    for (std::size_t r = 0; r < mu.size(); ++r) {
      feasible = feasible && e.mem[r] >= full_.memory.low[r] && e.mem[r] <= full_.memory.high[r];
    }
    if (feasible && e.cost < out_.cost_us) {
      out_.found = true;
      out_.cost_us = e.cost;
      out_.labels = e.y;
    }
  }

  // Breakpoint search on μ_r with the other multipliers fixed. @post true when μ_r moved.
  bool line_search(std::vector<double>& mu, std::size_t r) {
    Eval lo = evaluate(mu);
    if (!lo.ok) return false;
    const int side = violates(lo, r, 1) ? 1 : violates(lo, r, -1) ? -1 : 0;
    if (side == 0) return false;
    const double start = mu[r];
    // The part of a labelling's Lagrangian that does not depend on μ_r, and its slope.
    auto intercept = [&](const Eval& e, double at) {
      return e.lagrangian - at * static_cast<double>(e.mem[r]);
    };
    double lo_mu = mu[r];
    const double bound = static_cast<double>(side > 0 ? full_.memory.high[r] : full_.memory.low[r]);
    double step =
        (std::fabs(lo.cost) + 1) / std::max(1.0, std::fabs(static_cast<double>(lo.mem[r]) - bound));
    Eval hi;
    double hi_mu = 0;
    for (int k = 0; k < kBracketSteps; ++k) {
      mu[r] = lo_mu + side * step;
      Eval e = evaluate(mu);
      if (!e.ok) {
        mu[r] = start;
        return false;
      }
      if (!violates(e, r, side)) {
        hi = std::move(e);
        hi_mu = mu[r];
        break;
      }
      lo = std::move(e);
      lo_mu = mu[r];
      step *= 4;
    }
    if (!hi.ok) {
      mu[r] = start;
      return false;
    }
    for (int k = 0; k < kMaxSteps; ++k) {
      const double a_lo = intercept(lo, lo_mu), a_hi = intercept(hi, hi_mu);
      const double slope = static_cast<double>(lo.mem[r] - hi.mem[r]);
      if (slope == 0) break;
      const double cross = (a_hi - a_lo) / slope;
      if (!(cross != lo_mu && cross != hi_mu)) break;
      mu[r] = cross;
      Eval e = evaluate(mu);
      if (!e.ok) break;
      const double line = a_lo + cross * static_cast<double>(lo.mem[r]);
      if (e.lagrangian >= line - 1e-12 * (std::fabs(line) + 1)) break;  // no breakpoint below
      if (violates(e, r, side)) {
        lo = std::move(e);
        lo_mu = cross;
      } else {
        hi = std::move(e);
        hi_mu = cross;
      }
    }
    mu = out_.multiplier;  // continue from the best bound found
    return mu[r] != start;
  }

  const EngineProblem& full_;
  const EngineSolve& solve_;
  Clock::time_point deadline_;
  const EngineSolution* relaxed_;
  DualResult out_;
};

}  // namespace

double labelling_cost(const EngineProblem& problem, const std::vector<std::int32_t>& y) {
  double total = 0;
  for (const Factor& f : problem.factors) {
    const Table& t = *f.table;
    std::int64_t entry = 0;
    for (std::size_t k = 0; k < f.scope.size(); ++k) entry = entry * t.dims[k] + y[f.scope[k]];
    total += t.min_cost(entry);
  }
  return total;
}

EngineProblem lagrangian_problem(const EngineProblem& full, const std::vector<double>& mu) {
  EngineProblem p = without_memory(full);
  const std::size_t rows = full.memory.rows();
  for (std::int32_t id : full.unary) {
    const Table& t = *full.factors[id].table;
    if (!t.frontier) continue;
    auto u = std::make_shared<Table>();
    u->dims = t.dims;
    u->entries = t.entries;
    u->cost.assign(static_cast<std::size_t>(t.entries), kInf);
    for (std::int64_t l = 0; l < t.entries; ++l) {
      if (t.points(l) == 0) continue;
      double c = t.point_cost[t.begin[l]];
      for (std::size_t r = 0; r < rows; ++r) {
        c += mu[r] * static_cast<double>(t.point_mem[t.begin[l] * rows + r]);
      }
      u->cost[static_cast<std::size_t>(l)] = c;
    }
    p.factors[id].table = std::move(u);
  }
  return p;
}

double multiplier_offset(const MemoryModel& memory, const std::vector<double>& mu) {
  double offset = 0;
  for (std::size_t r = 0; r < mu.size(); ++r) {
    offset += mu[r] * static_cast<double>(mu[r] >= 0 ? memory.high[r] : memory.low[r]);
  }
  return offset;
}

DualResult lagrangian_dual(const EngineProblem& full, const EngineSolve& solve,
                           Clock::time_point deadline, const EngineSolution* relaxed) {
  return Dual(full, solve, deadline, relaxed).run();
}

}  // namespace dtplan::solve::detail
