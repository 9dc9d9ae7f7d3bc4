#include "support/brute_force.h"

#include <algorithm>

#include "solve/evaluate.h"

namespace dtplan::testing {

namespace {

bool satisfies(const solve::Problem& p, const std::vector<solve::LabelIndex>& y) {
  for (const solve::Pin& pin : p.pins) {
    if (std::find(pin.labels.begin(), pin.labels.end(), y[pin.node]) == pin.labels.end())
      return false;
  }
  for (const solve::Follower& f : p.followers) {
    if (f.label_map[y[f.leader]] != y[f.node]) return false;
  }
  for (const solve::MemoryRow& row : p.memory) {
    std::int64_t total = 0;
    for (const solve::MemoryTerm& t : row.terms) total += t.bytes[y[t.node]];
    if (total < row.low_bytes || total > row.high_bytes) return false;
  }
  return true;
}

}  // namespace

BruteForceResult brute_force(const solve::Problem& p) {
  BruteForceResult best;
  std::vector<solve::LabelIndex> y(p.nodes.size(), 0);
  for (;;) {
    const double cost = solve::objective_us(p, y);
    if (cost != solve::kForbidden && (!best.feasible || cost < best.objective_us) &&
        satisfies(p, y)) {
      best = {true, cost, y};
    }
    std::size_t k = y.size();
    while (k > 0) {
      --k;
      if (++y[k] < p.labels(static_cast<solve::NodeIndex>(k))) break;
      y[k] = 0;
      if (k == 0) return best;
    }
    if (y.empty()) return best;
  }
}

}  // namespace dtplan::testing
