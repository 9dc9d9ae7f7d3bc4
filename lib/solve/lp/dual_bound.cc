#include "solve/lp/dual_bound.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <unordered_map>

#include "solve/lp/matrix_classes.h"
#include "solve/lp/min_kernels.h"

namespace dtplan::solve::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Matrices with fewer entries are read as they are.
constexpr std::size_t kMinClassified = 256;
// dual_bound's until_stalled: passes without a cheaper decoded labelling, and the share of the gap
// the bound's projected gain must reach.
constexpr std::int32_t kStallPasses = 5;
constexpr double kStallShare = 1.0 / 8;

struct Incidence {
  std::int32_t edge = 0;
  bool is_from = false;  // this node is the edge's producer
};

class Messages {
 public:
  explicit Messages(const Problem& p) : p_(p) {
    const std::size_t n = p.nodes.size();
    adj_.resize(n);
    alive_.resize(n);
    pot_.resize(n);
    for (std::size_t v = 0; v < n; ++v) {
      const auto& u = p.nodes[v].cost_us;
      alive_[v].resize(u.size());
      for (std::size_t a = 0; a < u.size(); ++a) alive_[v][a] = static_cast<char>(u[a] < kInf);
      pot_[v].assign(u.size(), 0.0);
    }
    lam_.resize(p.edges.size());
    fresh_.assign(p.edges.size(), {0, 0});
    for (std::size_t e = 0; e < p.edges.size(); ++e) {
      const Edge& edge = p.edges[e];
      adj_[edge.from].push_back({static_cast<std::int32_t>(e), true});
      adj_[edge.to].push_back({static_cast<std::int32_t>(e), false});
      lam_[e][0].assign(p.nodes[edge.from].cost_us.size(), 0.0);
      lam_[e][1].assign(p.nodes[edge.to].cost_us.size(), 0.0);
    }
    classify_matrices();
  }

  // Starts from `warm` (see dual_bound()): every end is recomputed at its node's next visit.
  void load(const EdgeMessages& warm) {
    for (std::size_t e = 0; e < lam_.size(); ++e) {
      for (std::size_t end = 0; end < 2; ++end) {
        std::vector<double>& lam = lam_[e][end];
        if (warm[e][end].size() != lam.size()) continue;
        for (std::size_t a = 0; a < lam.size(); ++a) {
          const double w = warm[e][end][a];
          lam[a] = std::isfinite(w) ? w : 0.0;
        }
      }
      fresh_[e] = {0, 0};
    }
  }

  // The messages, moved out (the object is done with).
  [[nodiscard]] EdgeMessages take_messages() { return std::move(lam_); }

  // One visit of node v; `forward` says which neighbours are later (higher index forward). With
  // `bounds`, records v's label bounds LB + θ'_v(a) - min θ'_v once every incident edge's
  // min-marginal is in θ'_v (`lb`: a lower bound of the LB at that moment, which only grows).
  void update(NodeIndex v, bool forward, double lb = 0, std::vector<double>* bounds = nullptr) {
    std::vector<double>& pot = pot_[v];
    const std::size_t labels = pot.size();
    std::int32_t in = 0;
    std::int32_t out = 0;
    for (const Incidence& inc : adj_[v]) {
      const NodeIndex w = other(inc);
      (forward ? w > v : w < v) ? ++out : ++in;
      // λ_ev(a) = min_b B(a,b) - λ_ew(b): θ'_e's rows towards v then have minimum 0. Skipped
      // where λ_ev already is that (nothing it reads changed since): half of all visits.
      char& fresh = fresh_[inc.edge][inc.is_from ? 0 : 1];
      if (fresh == 0) {
        row_minima(inc, lam_[inc.edge][inc.is_from ? 0 : 1]);
        fresh = 1;
        fresh_[inc.edge][inc.is_from ? 1 : 0] = 0;
      }
    }
    bool died = false;
    sum_messages(v, pot);
    for (std::size_t a = 0; a < labels; ++a) {
      if (!(pot[a] < kInf) && alive_[v][a] != 0) {
        alive_[v][a] = 0;
        died = true;
      }
      if (alive_[v][a] == 0) pot[a] = kInf;
    }
    if (died) {  // the neighbours' minima range over v's live labels
      for (const Incidence& inc : adj_[v]) fresh_[inc.edge][inc.is_from ? 1 : 0] = 0;
    }
    if (bounds != nullptr) {
      const double least = node_min(v);
      bounds->assign(labels, kInf);
      for (std::size_t a = 0; a < labels; ++a) {
        if (alive_[v][a]) (*bounds)[a] = lb + (pot[a] - least);
      }
    }
    if (out == 0) return;
    const double share = 1.0 / std::max(in, out);
    for (const Incidence& inc : adj_[v]) {
      const NodeIndex w = other(inc);
      if (!(forward ? w > v : w < v)) continue;
      std::vector<double>& lam = lam_[inc.edge][inc.is_from ? 0 : 1];
      for (std::size_t a = 0; a < labels; ++a) {
        if (alive_[v][a]) lam[a] -= share * pot[a];
      }
      fresh_[inc.edge] = {0, 0};
    }
    // θ'_v keeps what it did not hand out (recomputed from λ, so it never drifts from them).
    sum_messages(v, pot);
    for (std::size_t a = 0; a < labels; ++a) {
      if (alive_[v][a] == 0) pot[a] = kInf;
    }
  }

  // LB = Σ_v min θ'_v + Σ_e min θ'_e, where every min θ'_e is 0 after a backward pass: the
  // edge's earlier node, visited last, set its λ to the edge's row minima and handed nothing out.
  [[nodiscard]] double lower_bound_after_backward() const {
    double lb = 0;
    for (std::size_t v = 0; v < pot_.size(); ++v) lb += node_min(static_cast<NodeIndex>(v));
    return lb;
  }

  // The labelling decoded from the messages: nodes in index order, each cheapest against its
  // labelled neighbours plus its later neighbours' messages (ties: lowest label).
  std::vector<LabelIndex> decode() {
    const std::size_t n = pot_.size();
    std::vector<LabelIndex> y(n, -1);
    for (std::size_t v = 0; v < n; ++v) {
      const auto vi = static_cast<NodeIndex>(v);
      y[v] = best_label(vi, y, [&](const Incidence& inc, std::size_t a) {
        return lam_[inc.edge][inc.is_from ? 0 : 1][a];
      });
    }
    return y;
  }

  // Iterated conditional modes: each node in turn takes its cheapest label given the others
  // (kept on ties), until a sweep changes nothing (at most `sweeps`). A node none of whose
  // neighbours changed since its last visit would keep its label, so it is skipped.
  void improve(std::vector<LabelIndex>& y, std::int32_t sweeps) {
    std::vector<char> queued(y.size(), 1);
    for (std::int32_t s = 0; s < sweeps; ++s) {
      bool changed = false;
      for (std::size_t v = 0; v < y.size(); ++v) {
        if (queued[v] == 0) continue;
        queued[v] = 0;
        const auto vi = static_cast<NodeIndex>(v);
        const LabelIndex best =
            best_label(vi, y, [](const Incidence&, std::size_t) { return kInf; });
        if (best >= 0 && scratch_[best] < scratch_[y[v]]) {
          y[v] = best;
          changed = true;
          for (const Incidence& inc : adj_[v]) queued[other(inc)] = 1;
        }
      }
      if (!changed) return;
    }
  }

  [[nodiscard]] double energy(const std::vector<LabelIndex>& y) const {
    double total = 0;
    for (std::size_t v = 0; v < y.size(); ++v) total += p_.nodes[v].cost_us[y[v]];
    for (const Edge& e : p_.edges) total += pair_cost(p_, e, y[e.from], y[e.to]);
    return total;
  }

 private:
  [[nodiscard]] NodeIndex other(const Incidence& inc) const {
    const Edge& e = p_.edges[inc.edge];
    return inc.is_from ? e.to : e.from;
  }

  // out = θ'_v = U_v + Σ_e λ_ev over v's labels, dead ones included: the messages are added
  // edge by edge in incidence order (each label's sum takes the same steps in the same order as
  // a sum label by label, and the loops run over contiguous vectors).
  void sum_messages(NodeIndex v, std::vector<double>& out) const {
    const std::vector<double>& unary = p_.nodes[v].cost_us;
    out.assign(unary.begin(), unary.end());
    for (const Incidence& inc : adj_[v]) {
      const std::vector<double>& lam = lam_[inc.edge][inc.is_from ? 0 : 1];
      for (std::size_t a = 0; a < out.size(); ++a) out[a] += lam[a];
    }
  }

  // The classes of the matrices where they leave at most 3/4 of the entries (each matrix shared
  // by several edges classified once; small ones not at all: their loops are short anyway).
  void classify_matrices() {
    classes_.assign(p_.edges.size(), nullptr);
    std::unordered_map<const double*, const MatrixClasses*> done;
    for (std::size_t e = 0; e < p_.edges.size(); ++e) {
      const Edge& edge = p_.edges[e];
      const std::size_t lf = p_.nodes[edge.from].cost_us.size();
      const std::size_t lt = p_.nodes[edge.to].cost_us.size();
      if (lf * lt < kMinClassified) continue;
      const auto [it, added] = done.emplace(edge.cost_us.data(), nullptr);
      if (added) {
        MatrixClasses k = matrix_classes(edge.cost_us.data(), lf, lt);
        if (4 * (k.rows * k.cols + lf + lt) <= 3 * lf * lt) {
          owned_.push_back(std::make_unique<const MatrixClasses>(std::move(k)));
          it->second = owned_.back().get();
        }
      }
      classes_[e] = it->second;
    }
  }

  // rows[a] = min_b B(a,b) - λ_ew(b) over the other endpoint's live labels (a: this end's label).
  void row_minima(const Incidence& inc, std::vector<double>& rows) const {
    const Edge& e = p_.edges[inc.edge];
    const std::size_t lf = p_.nodes[e.from].cost_us.size();
    const std::size_t lt = p_.nodes[e.to].cost_us.size();
    const std::vector<double>& lw = lam_[inc.edge][inc.is_from ? 1 : 0];
    const std::vector<char>& live = alive_[inc.is_from ? e.to : e.from];
    const MatrixClasses* k = classes_[inc.edge];
    if (inc.is_from && k != nullptr) {
      row_minima_by_class(*k, lw.data(), live.data(), rows, class_scratch_);
    } else if (inc.is_from) {
      // Dead labels get λ = -inf, so that B(a,b) - λ(b) = +inf never wins.
      std::vector<double>& w = masked_;
      w.resize(lt);
      for (std::size_t b = 0; b < lt; ++b) w[b] = live[b] ? lw[b] : -kInf;
      rows.resize(lf);
      row_minima_less(e.cost_us.data(), w.data(), lf, lt, rows.data());
    } else if (k != nullptr) {
      column_minima_by_class(*k, lw.data(), live.data(), rows, class_scratch_);
    } else {
      rows.resize(lt);
      column_minima_less(e.cost_us.data(), lw.data(), live.data(), lf, lt, rows.data());
    }
  }

  [[nodiscard]] double node_min(NodeIndex v) const {
    double m = kInf;
    for (double t : pot_[v]) m = std::min(m, t);
    return m;
  }

  // The live label minimising, in scratch_[a], the unary plus the edges to labelled neighbours
  // plus `unlabelled(inc, a)` (where finite) for the others; ties: the lowest label.
  template <typename F>
  LabelIndex best_label(NodeIndex v, const std::vector<LabelIndex>& y, F unlabelled) {
    const std::vector<double>& unary = p_.nodes[v].cost_us;
    const std::size_t labels = unary.size();
    scratch_.assign(unary.begin(), unary.end());
    for (const Incidence& inc : adj_[v]) {
      const Edge& e = p_.edges[inc.edge];
      const LabelIndex b = y[other(inc)];
      if (b >= 0 && inc.is_from) {
        const std::size_t lt = p_.nodes[e.to].cost_us.size();
        for (std::size_t a = 0; a < labels; ++a) scratch_[a] += e.cost_us[a * lt + b];
      } else if (b >= 0) {
        const double* row = &e.cost_us[static_cast<std::size_t>(b) * labels];
        for (std::size_t a = 0; a < labels; ++a) scratch_[a] += row[a];
      } else {
        for (std::size_t a = 0; a < labels; ++a) {
          const double m = unlabelled(inc, a);
          if (m < kInf) scratch_[a] += m;
        }
      }
    }
    LabelIndex best = -1;
    for (std::size_t a = 0; a < labels; ++a) {
      if (alive_[v][a] && (best < 0 || scratch_[a] < scratch_[best])) {
        best = static_cast<LabelIndex>(a);
      }
    }
    return best;
  }

  const Problem& p_;
  std::vector<std::vector<Incidence>> adj_;
  std::vector<std::vector<char>> alive_;  // labels not yet proven infinite
  std::vector<std::vector<double>> pot_;  // θ'_v
  EdgeMessages lam_;                      // per edge: λ at from, λ at to
  // Per edge and end: λ there equals the row minima of the current λ and live labels at the
  // other end.
  std::vector<std::array<char, 2>> fresh_;
  std::vector<double> scratch_;         // best_label's per-label costs
  mutable std::vector<double> masked_;  // row_minima's λ with dead labels at -inf
  // Per edge: its matrix's classes, or null (row_minima then reads the matrix itself).
  std::vector<const MatrixClasses*> classes_;
  std::vector<std::unique_ptr<const MatrixClasses>> owned_;
  mutable ClassScratch class_scratch_;
};

// Whether the deadline passed, read on the first call and every 64th (node visits are short).
class DeadlineCheck {
 public:
  explicit DeadlineCheck(Clock::time_point deadline) : deadline_(deadline) {}
  bool passed() {
    if ((calls_++ & 63) != 0) return late_;
    late_ = late_ || Clock::now() > deadline_;
    return late_;
  }

 private:
  Clock::time_point deadline_;
  std::uint32_t calls_ = 0;
  bool late_ = false;
};

}  // namespace

double gap_stop(double upper, double relative_gap) {
  if (!std::isfinite(upper)) return upper;
  double t = upper - relative_gap * std::fabs(upper);
  while (upper - t > relative_gap * std::fabs(upper)) t = std::nextafter(t, upper);
  return t;
}

bool meets_bound(double cost, double bound) {
  return std::isfinite(bound) && cost - bound <= rounding_slack(bound);
}

DualBound dual_bound(const Problem& problem, const DualBoundOptions& options) {
  const std::int32_t max_passes = options.max_passes;
  const double relative_gap = options.relative_gap;
  const EdgeMessages* warm = options.warm;
  double enough_us = options.enough_us;  // lowered where a decoded labelling is within the gap
  Messages m(problem);
  if (warm != nullptr && warm->size() == problem.edges.size()) m.load(*warm);
  const double settled_us = enough_us;  // the caller's, before a decoded labelling lowers it
  const auto n = static_cast<NodeIndex>(problem.nodes.size());
  DualBound out;
  DeadlineCheck clock(options.deadline);
  std::int32_t decoded_at = 0;  // the pass that decoded the labelling kept
  for (std::int32_t pass = 0; pass < max_passes; ++pass) {
    for (NodeIndex v = 0; v < n && !clock.passed(); ++v) m.update(v, true);
    for (NodeIndex v = n - 1; v >= 0 && !clock.passed(); --v) m.update(v, false);
    if (clock.passed()) break;  // the pass is incomplete: its messages prove nothing
    ++out.passes;
    const double lb = m.lower_bound_after_backward();
    std::vector<LabelIndex> y = m.decode();
    if (std::find(y.begin(), y.end(), -1) == y.end()) {
      m.improve(y, 8);
      const double cost = m.energy(y);
      if (cost < out.upper_us) {
        decoded_at = out.passes;
        out.upper_us = cost;
        out.labels = std::move(y);
        // Within the gap of a labelling meeting the memory rows: close enough for the caller.
        if (relative_gap > 0 && meets_memory(problem.memory, out.labels)) {
          enough_us = std::min(enough_us, gap_stop(cost, relative_gap));
        }
      }
    }
    const double gained = lb - out.lower_bound_us;
    out.lower_bound_us = std::max(out.lower_bound_us, lb);
    if (!(out.lower_bound_us < kInf)) break;  // infeasible, proven
    if (out.lower_bound_us >= enough_us) break;
    const double scale = rounding_slack(out.lower_bound_us);
    const double gap = out.upper_us - out.lower_bound_us;
    if (gap <= scale || gained <= scale) break;
    const double projected = gained * (max_passes - out.passes);
    if (options.tight_only && projected < gap) break;
    if (options.until_stalled && std::isfinite(gap) && out.passes - decoded_at >= kStallPasses &&
        projected < kStallShare * gap) {
      break;
    }
  }
  // One more forward pass records the label bounds, each when its node holds every message.
  // Stopped by the deadline, every label gets LB (true of every labelling), which pins nothing;
  // so does a bound that reached the caller's `enough_us`, which the caller needs no window for.
  out.label_bound_us.resize(problem.nodes.size());
  const double lb = out.lower_bound_us;
  if (clock.passed() || out.passes == 0 || lb >= settled_us) {
    for (NodeIndex v = 0; v < n; ++v) {
      out.label_bound_us[v].assign(problem.nodes[v].cost_us.size(), lb);
    }
  } else {
    for (NodeIndex v = 0; v < n; ++v) m.update(v, true, lb, &out.label_bound_us[v]);
  }
  out.messages = m.take_messages();
  return out;
}

namespace {

// A label stays in a window at `upper_us` when its bound is at most this.
double keep_limit(double upper_us) { return upper_us + 1e-7 * (std::fabs(upper_us) + 1); }

}  // namespace

std::int64_t kept_labels(const DualBound& bound, double upper_us) {
  const double limit = keep_limit(upper_us);
  std::int64_t out = 0;
  for (const std::vector<double>& b : bound.label_bound_us) {
    out += std::count_if(b.begin(), b.end(), [&](double x) { return x <= limit; });
  }
  return out;
}

std::vector<Pin> bound_pins(const DualBound& bound, double upper_us,
                            const std::vector<RepeatGroup>& repeats) {
  const double limit = keep_limit(upper_us);
  std::vector<std::vector<char>> keep(bound.label_bound_us.size());
  for (std::size_t v = 0; v < keep.size(); ++v) {
    const std::vector<double>& b = bound.label_bound_us[v];
    keep[v].resize(b.size());
    for (std::size_t a = 0; a < b.size(); ++a) keep[v][a] = static_cast<char>(b[a] <= limit);
  }
  for (const RepeatGroup& g : repeats) {
    if (g.blocks.empty()) continue;
    for (std::size_t p = 0; p < g.blocks[0].size(); ++p) {
      std::vector<char> any(keep[g.blocks[0][p]].size(), 0);
      for (const auto& block : g.blocks) {
        for (std::size_t a = 0; a < any.size(); ++a) any[a] |= keep[block[p]][a];
      }
      for (const auto& block : g.blocks) keep[block[p]] = any;
    }
  }
  std::vector<Pin> pins;
  for (std::size_t v = 0; v < keep.size(); ++v) {
    Pin pin;
    pin.node = static_cast<NodeIndex>(v);
    for (std::size_t a = 0; a < keep[v].size(); ++a) {
      if (keep[v][a]) pin.labels.push_back(static_cast<LabelIndex>(a));
    }
    if (pin.labels.size() < keep[v].size()) pins.push_back(std::move(pin));
  }
  return pins;
}

}  // namespace dtplan::solve::detail
