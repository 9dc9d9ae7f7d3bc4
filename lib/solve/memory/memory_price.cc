#include "solve/memory/memory_price.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "solve/evaluate.h"

namespace dtplan::solve::detail {

namespace {

// LP passes per rate tried (each warm from the last rate's messages).
constexpr std::int32_t kPassesPerRate = 20;
// Rates tried at most.
constexpr int kMaxRates = 20;
// The bisection stops once the rates that break and meet the rows are this close (relative): a
// coarser rate leaves the long LP priced at it short of a 1e-4 gap.
constexpr double kRateTolerance = 1.0 / 1024;

}  // namespace

bool lean_decoding_counts(const Problem& priced, const std::vector<LabelIndex>& over,
                          const DualBound& d) {
  return objective_us(priced, over) - d.lower_bound_us > (d.upper_us - d.lower_bound_us) / 4;
}

namespace {

// The bytes of `labels` over row.high_bytes (0 within it).
double row_excess(const MemoryRow& row, const std::vector<LabelIndex>& labels) {
  double bytes = 0;
  for (const MemoryTerm& t : row.terms) bytes += static_cast<double>(t.bytes[labels[t.node]]);
  return std::max(0.0, bytes - static_cast<double>(row.high_bytes));
}

}  // namespace

double excess_bytes(const std::vector<MemoryRow>& rows, const std::vector<LabelIndex>& labels) {
  double out = 0;
  for (const MemoryRow& row : rows) out += row_excess(row, labels);
  return out;
}

SavedUnaries price_memory(Problem& problem, const std::vector<double>& rate,
                          const std::vector<double>& copies) {
  SavedUnaries saved;
  std::vector<char> seen(problem.nodes.size(), 0);
  for (std::size_t r = 0; r < rate.size() && r < problem.memory.size(); ++r) {
    if (!(rate[r] > 0)) continue;
    for (const MemoryTerm& t : problem.memory[r].terms) {
      std::vector<double>& cost = problem.nodes[t.node].cost_us;
      if (!seen[t.node]) {
        seen[t.node] = 1;
        saved.emplace_back(t.node, cost);
      }
      const double scale = rate[r] / (copies.empty() ? 1.0 : copies[t.node]);
      for (std::size_t l = 0; l < cost.size(); ++l) {
        cost[l] += scale * static_cast<double>(t.bytes[l]);
      }
    }
  }
  return saved;
}

void restore_unaries(Problem& problem, SavedUnaries saved) {
  for (auto& [v, cost] : saved) problem.nodes[v].cost_us = std::move(cost);
}

double price_shift(const std::vector<MemoryRow>& rows, const std::vector<double>& rate) {
  double out = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (rate[r] > 0) out += rate[r] * static_cast<double>(rows[r].high_bytes);
  }
  return out;
}

std::vector<double> copies_of(const std::vector<NodeIndex>& source, std::size_t short_nodes) {
  std::vector<double> out(short_nodes, 0);
  for (NodeIndex u : source) out[u] += 1;
  for (double& c : out) c = std::max(c, 1.0);
  return out;
}

DualBound priced_dual_bound(Problem& problem, const std::vector<double>& rate,
                            const DualBoundOptions& options) {
  const double shift = price_shift(problem.memory, rate);
  auto unaries = price_memory(problem, rate);
  DualBoundOptions priced = options;
  priced.enough_us += shift;
  priced.relative_gap = 0;
  DualBound d = dual_bound(problem, priced);
  restore_unaries(problem, std::move(unaries));
  d.lower_bound_us -= shift;
  d.upper_us -= shift;
  for (std::vector<double>& b : d.label_bound_us) {
    for (double& x : b) x -= shift;
  }
  return d;
}

std::optional<DualBound> memory_priced_bound(Problem& problem, const DualBound& d,
                                             double incumbent_us, Clock::time_point deadline) {
  constexpr std::int32_t kPasses = 3;
  if (d.labels.size() != problem.nodes.size()) return std::nullopt;
  std::vector<double> rate(problem.memory.size(), 0);
  bool any = false;
  for (std::size_t r = 0; r < rate.size(); ++r) {
    const double excess = row_excess(problem.memory[r], d.labels);
    const double mu = (incumbent_us - d.upper_us) / excess;
    if (!(excess > 0) || !(mu > 0) || !std::isfinite(mu)) continue;
    rate[r] = mu;
    any = true;
  }
  if (!any) return std::nullopt;
  return priced_dual_bound(problem, rate,
                           {.max_passes = kPasses, .deadline = deadline, .warm = &d.messages});
}

RateSearch search_rate(Problem problem, const std::vector<double>& copies,
                       const std::vector<LabelIndex>& start, const EdgeMessages& messages,
                       double start_rate, Clock::time_point deadline) {
  RateSearch out;
  out.over = start;
  out.messages = messages;
  // The rows `start` breaks are priced, at one rate.
  std::vector<double> weight(problem.memory.size(), 0);
  for (std::size_t r = 0; r < weight.size(); ++r) {
    weight[r] = row_excess(problem.memory[r], start) > 0 ? 1 : 0;
  }
  auto at = [&](double t) {
    std::vector<double> rate = weight;
    for (double& x : rate) x *= t;
    return rate;
  };
  double lo = 0;
  double hi = std::numeric_limits<double>::infinity();
  double t = start_rate;
  for (int step = 0; step < kMaxRates && Clock::now() < deadline; ++step) {
    auto unaries = price_memory(problem, at(t), copies);
    DualBound d = dual_bound(
        problem, {.max_passes = kPassesPerRate, .deadline = deadline, .warm = &out.messages});
    const bool lean = !d.labels.empty() && meets_memory(problem.memory, d.labels);
    // While the rate still grows x4, a lean decoding counts only where the last plan over the
    // budget is no longer nearly optimal (lean_decoding_counts); once bracketed, the steps are
    // small, the LP warm, and every lean decoding counts.
    const bool meets = lean && (!std::isinf(hi) || lean_decoding_counts(problem, out.over, d));
    restore_unaries(problem, std::move(unaries));
    if (d.passes == 0) break;
    out.messages = std::move(d.messages);
    // A lean decoding that does not count is still a plan within the budget (the only one, until
    // one counts).
    if (lean && (meets || out.under.empty())) out.under = std::move(d.labels);
    if (meets) {
      hi = t;
    } else {
      lo = t;
      if (!lean && !d.labels.empty()) out.over = std::move(d.labels);
    }
    if (std::isinf(hi)) {
      t *= 4;
    } else {
      if (hi - lo <= hi * kRateTolerance) break;
      t = (lo + hi) / 2;
    }
  }
  out.rate = at(std::isinf(hi) ? lo : (lo + hi) / 2);
  return out;
}

}  // namespace dtplan::solve::detail
