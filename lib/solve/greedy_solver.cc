// The greedy baseline: nodes in index order (exported graphs list producers first), each taking
// the label that is cheapest given the labels already chosen -- its unary cost plus its edges to
// labelled nodes -- among the labels its pins allow, its followers and leaders already labelled
// accept, and the memory rows can still accommodate whatever the later nodes choose.
// Ties: the lowest label. Its lower bound is the trivial one (Σ of minima), so it proves
// optimality only in trivial cases.

#include <algorithm>
#include <chrono>
#include <string>

#include "solve/evaluate.h"
#include "solve/solver.h"

namespace dtplan::solve {

namespace {

struct Link {
  NodeIndex other = 0;
  std::int32_t index = 0;  // edge or follower index
  bool is_from = false;    // this node is the edge's producer (or the follower's leader)
  bool follower = false;
};

class GreedySolver final : public Solver {
 public:
  [[nodiscard]] std::string_view name() const override { return "greedy"; }

  [[nodiscard]] core::Result<Solution> solve(const Problem& p,
                                             const SolveOptions& options) const override {
    const auto start = std::chrono::steady_clock::now();
    (void)options;
    DTPLAN_CHECK(validate(p));
    const std::size_t n = p.nodes.size();
    std::vector<std::vector<Link>> links(n);
    for (std::size_t e = 0; e < p.edges.size(); ++e) {
      const Edge& edge = p.edges[e];
      links[edge.from].push_back({edge.to, static_cast<std::int32_t>(e), true, false});
      links[edge.to].push_back({edge.from, static_cast<std::int32_t>(e), false, false});
    }
    for (std::size_t f = 0; f < p.followers.size(); ++f) {
      const Follower& fol = p.followers[f];
      links[fol.leader].push_back({fol.node, static_cast<std::int32_t>(f), true, true});
      links[fol.node].push_back({fol.leader, static_cast<std::int32_t>(f), false, true});
    }
    std::vector<std::vector<char>> allowed(n);
    for (std::size_t i = 0; i < n; ++i) allowed[i].assign(p.nodes[i].cost_us.size(), 1);
    for (const Pin& pin : p.pins) {
      std::vector<char> mask(allowed[pin.node].size(), 0);
      for (LabelIndex l : pin.labels) mask[l] = 1;
      for (std::size_t l = 0; l < mask.size(); ++l)
        allowed[pin.node][l] = static_cast<char>(allowed[pin.node][l] & mask[l]);
    }
    // Memory: per row, bytes chosen so far and the range the unlabelled nodes can still add.
    const std::size_t rows = p.memory.size();
    std::vector<std::vector<const MemoryTerm*>> terms(n, std::vector<const MemoryTerm*>(rows));
    std::vector<std::int64_t> used(rows, 0), rest_min(rows, 0), rest_max(rows, 0);
    for (std::size_t r = 0; r < rows; ++r) {
      for (const MemoryTerm& t : p.memory[r].terms) {
        terms[t.node][r] = &t;
        rest_min[r] += *std::min_element(t.bytes.begin(), t.bytes.end());
        rest_max[r] += *std::max_element(t.bytes.begin(), t.bytes.end());
      }
    }
    std::vector<LabelIndex> labels(n, -1);
    for (std::size_t v = 0; v < n; ++v) {
      double best = kForbidden;
      LabelIndex arg = -1;
      for (LabelIndex l = 0; l < p.labels(static_cast<NodeIndex>(v)); ++l) {
        if (!allowed[v][l] || !fits(p, terms[v], l, used, rest_min, rest_max)) continue;
        double c = p.nodes[v].cost_us[l];
        for (const Link& k : links[v]) {
          const LabelIndex o = labels[k.other];
          if (o < 0) continue;
          if (k.follower) {
            const Follower& f = p.followers[k.index];
            const bool ok = k.is_from ? f.label_map[l] == o : f.label_map[o] == l;
            c += ok ? 0.0 : kForbidden;
          } else {
            const Edge& e = p.edges[k.index];
            c += k.is_from ? pair_cost(p, e, l, o) : pair_cost(p, e, o, l);
          }
        }
        if (c < best) {
          best = c;
          arg = l;
        }
      }
      if (arg < 0) {
        return core::Error::unsupported("greedy: node '" + p.nodes[v].name +
                                        "' has no feasible label given the labels chosen before "
                                        "it (the exact solver may still find one)");
      }
      labels[v] = arg;
      for (std::size_t r = 0; r < rows; ++r) {
        if (terms[v][r] == nullptr) continue;
        const auto& b = terms[v][r]->bytes;
        used[r] += b[arg];
        rest_min[r] -= *std::min_element(b.begin(), b.end());
        rest_max[r] -= *std::max_element(b.begin(), b.end());
      }
    }
    DTPLAN_TRY(Evaluation ev, evaluate(p, labels));
    if (!ev.feasible()) {
      return core::Error::unsupported("greedy: its labelling violates " + ev.violations[0].message +
                                      " (the exact solver may still find one)");
    }
    Solution out;
    out.labels = std::move(labels);
    out.objective_us = ev.total_us;
    out.lower_bound_us = std::min(trivial_lower_bound_us(p), ev.total_us);
    out.optimal = out.lower_bound_us == out.objective_us;
    out.stats.input = out.stats.reduced = problem_size(p);
    out.time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  }

 private:
  // Whether label l keeps every memory row reachable.
  static bool fits(const Problem& p, const std::vector<const MemoryTerm*>& terms, LabelIndex l,
                   const std::vector<std::int64_t>& used, const std::vector<std::int64_t>& rest_min,
                   const std::vector<std::int64_t>& rest_max) {
    for (std::size_t r = 0; r < terms.size(); ++r) {
      if (terms[r] == nullptr) continue;
      const auto& b = terms[r]->bytes;
      const std::int64_t now = used[r] + b[l];
      const std::int64_t lo = rest_min[r] - *std::min_element(b.begin(), b.end());
      const std::int64_t hi = rest_max[r] - *std::max_element(b.begin(), b.end());
      if (now + lo > p.memory[r].high_bytes || now + hi < p.memory[r].low_bytes) return false;
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Solver> make_greedy_solver() { return std::make_unique<GreedySolver>(); }

}  // namespace dtplan::solve
