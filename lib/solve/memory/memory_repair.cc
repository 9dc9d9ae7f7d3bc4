#include "solve/memory/memory_repair.h"

#include <cmath>

namespace dtplan::solve::detail {

namespace {

// A relabelling must lower the cost by more than this to count as a descent step, so rounding
// cannot make the sweeps cycle.
constexpr double kMinGainUs = 1e-9;

// Sweeps of the descent at most (each one that changes a label lowers the cost).
constexpr int kMaxSweeps = 64;

class Repair {
 public:
  Repair(const Problem& p, std::vector<LabelIndex> labels) : p_(p), labels_(std::move(labels)) {
    const std::size_t n = p.nodes.size();
    adjacent_.resize(n);
    for (std::size_t e = 0; e < p.edges.size(); ++e) {
      adjacent_[static_cast<std::size_t>(p.edges[e].from)].push_back({e, true});
      adjacent_[static_cast<std::size_t>(p.edges[e].to)].push_back({e, false});
    }
    terms_.resize(n);
    totals_.assign(p.memory.size(), 0);
    for (std::size_t r = 0; r < p.memory.size(); ++r) {
      for (const MemoryTerm& t : p.memory[r].terms) {
        terms_[static_cast<std::size_t>(t.node)].push_back({r, &t.bytes});
        totals_[r] += t.bytes[static_cast<std::size_t>(label(t.node))];
      }
    }
    for (std::size_t v = 0; v < n; ++v) {
      if (!terms_[v].empty()) movable_.push_back(static_cast<NodeIndex>(v));
    }
  }

  std::vector<LabelIndex>& labels() { return labels_; }

  std::int64_t excess() const {
    std::int64_t out = 0;
    for (std::size_t r = 0; r < totals_.size(); ++r) out += row_excess(r, totals_[r]);
    return out;
  }

  // The excess change of relabelling v to l.
  std::int64_t excess_change(NodeIndex v, LabelIndex l) const {
    std::int64_t out = 0;
    const auto cur = static_cast<std::size_t>(label(v));
    for (const Term& t : terms_[static_cast<std::size_t>(v)]) {
      const std::int64_t after = totals_[t.row] - (*t.bytes)[cur] + (*t.bytes)[l];
      out += row_excess(t.row, after) - row_excess(t.row, totals_[t.row]);
    }
    return out;
  }

  // The cost change of relabelling v to l, every other label fixed (+inf or NaN: not allowed).
  double cost_change(NodeIndex v, LabelIndex l) const {
    const auto uv = static_cast<std::size_t>(v);
    const LabelIndex cur = label(v);
    const std::vector<double>& unary = p_.nodes[uv].cost_us;
    double d = unary[static_cast<std::size_t>(l)] - unary[static_cast<std::size_t>(cur)];
    for (const Adjacent& a : adjacent_[uv]) {
      const Edge& e = p_.edges[a.edge];
      const std::size_t cols = p_.nodes[static_cast<std::size_t>(e.to)].cost_us.size();
      const double* m = e.cost_us.data();
      if (a.from) {
        const auto o = static_cast<std::size_t>(label(e.to));
        d +=
            m[static_cast<std::size_t>(l) * cols + o] - m[static_cast<std::size_t>(cur) * cols + o];
      } else {
        const std::size_t row = static_cast<std::size_t>(label(e.from)) * cols;
        d += m[row + static_cast<std::size_t>(l)] - m[row + static_cast<std::size_t>(cur)];
      }
    }
    return d;
  }

  void apply(NodeIndex v, LabelIndex l) {
    const auto cur = static_cast<std::size_t>(label(v));
    for (const Term& t : terms_[static_cast<std::size_t>(v)]) {
      totals_[t.row] += (*t.bytes)[static_cast<std::size_t>(l)] - (*t.bytes)[cur];
    }
    labels_[static_cast<std::size_t>(v)] = l;
  }

  // One repair move; false when none removes excess.
  bool repair_step() {
    NodeIndex best_v = -1;
    LabelIndex best_l = -1;
    bool best_gain = false;  // lowers the cost too
    double best_key = 0;     // cost change (gain) or cost per byte removed
    for (NodeIndex v : movable_) {
      const auto labels =
          static_cast<LabelIndex>(p_.nodes[static_cast<std::size_t>(v)].cost_us.size());
      for (LabelIndex l = 0; l < labels; ++l) {
        if (l == label(v)) continue;
        const std::int64_t removed = -excess_change(v, l);
        if (removed <= 0) continue;
        const double d = cost_change(v, l);
        if (!std::isfinite(d)) continue;
        const bool gain = d < 0;
        const double key = gain ? d : d / static_cast<double>(removed);
        if (best_v < 0 || (gain && !best_gain) || (gain == best_gain && key < best_key)) {
          best_v = v;
          best_l = l;
          best_gain = gain;
          best_key = key;
        }
      }
    }
    if (best_v < 0) return false;
    apply(best_v, best_l);
    return true;
  }

  // One descent sweep; whether it changed a label.
  bool descent_sweep() {
    bool changed = false;
    for (std::size_t v = 0; v < p_.nodes.size(); ++v) {
      const auto node = static_cast<NodeIndex>(v);
      const auto labels = static_cast<LabelIndex>(p_.nodes[v].cost_us.size());
      LabelIndex best = -1;
      double best_d = -kMinGainUs;
      for (LabelIndex l = 0; l < labels; ++l) {
        if (l == label(node) || (!terms_[v].empty() && !meets_after(node, l))) continue;
        const double d = cost_change(node, l);
        if (d < best_d) {
          best = l;
          best_d = d;
        }
      }
      if (best >= 0) {
        apply(node, best);
        changed = true;
      }
    }
    return changed;
  }

 private:
  struct Adjacent {
    std::size_t edge;
    bool from;  // v is the edge's producer
  };
  struct Term {
    std::size_t row;
    const std::vector<std::int64_t>* bytes;
  };

  LabelIndex label(NodeIndex v) const { return labels_[static_cast<std::size_t>(v)]; }

  std::int64_t row_excess(std::size_t r, std::int64_t total) const {
    const MemoryRow& row = p_.memory[r];
    return (total > row.high_bytes ? total - row.high_bytes : 0) +
           (total < row.low_bytes ? row.low_bytes - total : 0);
  }

  bool meets_after(NodeIndex v, LabelIndex l) const {
    const auto cur = static_cast<std::size_t>(label(v));
    for (const Term& t : terms_[static_cast<std::size_t>(v)]) {
      const std::int64_t after = totals_[t.row] - (*t.bytes)[cur] + (*t.bytes)[l];
      if (row_excess(t.row, after) > 0) return false;
    }
    return true;
  }

  const Problem& p_;
  std::vector<LabelIndex> labels_;
  std::vector<std::vector<Adjacent>> adjacent_;
  std::vector<std::vector<Term>> terms_;
  std::vector<std::int64_t> totals_;  // per row
  std::vector<NodeIndex> movable_;    // nodes with a memory term, ascending
};

}  // namespace

std::optional<std::vector<LabelIndex>> repair_memory(
    const Problem& problem, std::vector<LabelIndex> labels,
    std::chrono::steady_clock::time_point deadline) {
  Repair r(problem, std::move(labels));
  while (r.excess() > 0) {
    if (std::chrono::steady_clock::now() > deadline || !r.repair_step()) return std::nullopt;
  }
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    if (std::chrono::steady_clock::now() > deadline || !r.descent_sweep()) break;
  }
  return std::move(r.labels());
}

}  // namespace dtplan::solve::detail
