// prune_by_bound() on random small problems against brute force: every optimal plan keeps all
// of its strategies (so the optimum is unchanged), tied components keep everything, and the
// bound drops something on problems built to have a clear optimum.

#include "strategy/bound_pruning.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>

namespace dtplan::strategy::testing {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct RandomProblem {
  std::vector<std::vector<double>> unary;        // per node, per strategy
  std::vector<std::vector<std::int64_t>> bytes;  // per node, per strategy (one term)
  std::vector<PruneEdge> edges;
  std::vector<std::vector<double>> costs;  // per edge, [u strategy][v strategy]
  std::vector<std::vector<char>> allowed;
  std::vector<char> tied;
  std::int64_t limit = 0;  // Σ bytes <= limit
};

RandomProblem make_problem(std::uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  RandomProblem p;
  const int n = pick(3, 7);
  for (int v = 0; v < n; ++v) {
    const int s = pick(1, 4);
    p.unary.emplace_back();
    p.bytes.emplace_back();
    p.allowed.emplace_back(static_cast<std::size_t>(s), 1);
    for (int k = 0; k < s; ++k) {
      p.unary.back().push_back(pick(0, 20));
      p.bytes.back().push_back(pick(1, 4));
    }
    if (pick(0, 2) == 0 && s > 1) {  // a pinned node: one strategy allowed
      std::fill(p.allowed.back().begin(), p.allowed.back().end(), 0);
      p.allowed.back()[static_cast<std::size_t>(pick(0, s - 1))] = 1;
    }
    p.tied.push_back(static_cast<char>(pick(0, 9) == 0));
  }
  for (int v = 1; v < n; ++v) {
    for (int u = 0; u < v; ++u) {
      if (pick(0, 2) != 0) continue;
      const std::size_t su = p.unary[static_cast<std::size_t>(u)].size();
      const std::size_t sv = p.unary[static_cast<std::size_t>(v)].size();
      std::vector<double> m(su * sv);
      for (double& c : m) c = pick(0, 15) == 0 ? kInf : pick(0, 30);
      p.edges.push_back({u, v, static_cast<double>(pick(1, 2))});
      p.costs.push_back(std::move(m));
    }
  }
  std::int64_t low = 0;
  std::int64_t high = 0;
  for (const auto& b : p.bytes) {
    low += *std::min_element(b.begin(), b.end());
    high += *std::max_element(b.begin(), b.end());
  }
  p.limit = low + pick(0, static_cast<int>(high - low));
  return p;
}

// How the test source answers seeded(): the seeded minima of the exact matrix, or origins
// that point anywhere (the plan they build is priced exactly, so the bound must hold however
// poor it is).
enum class Origins : std::uint8_t { kCheapest, kScrambled };

// Exact matrices; cheapest() gives the column minima times `loose` (<= 1: still lower bounds,
// as loose as the pruning must tolerate).
class Source final : public PruneEdgeSource {
 public:
  // `period`: edges e and e + period are in one class (0: each edge in its own).
  Source(const RandomProblem& p, double loose, Origins origins, std::size_t period = 0)
      : p_(p), loose_(loose), origins_(origins), period_(period) {}
  [[nodiscard]] std::int64_t edge_class(std::size_t e) const override {
    return static_cast<std::int64_t>(period_ == 0 ? e : e % period_);
  }
  core::Result<EdgeMatrix> matrix(std::size_t e, const std::vector<std::int32_t>& us,
                                  const std::vector<std::int32_t>& vs) override {
    const std::size_t sv = p_.unary[static_cast<std::size_t>(p_.edges[e].v)].size();
    auto m = std::make_shared<std::vector<double>>();
    for (std::int32_t u : us) {
      for (std::int32_t v : vs) {
        m->push_back(p_.costs[e][static_cast<std::size_t>(u) * sv + static_cast<std::size_t>(v)]);
      }
    }
    return EdgeMatrix(std::move(m));
  }
  core::Result<EdgeMatrix> cheapest(std::size_t e, const std::vector<std::int32_t>& us,
                                    const std::vector<std::int32_t>& vs) override {
    DTPLAN_TRY(EdgeMatrix m, matrix(e, us, vs));
    auto out = std::make_shared<std::vector<double>>(column_minima(*m, vs.size()));
    for (double& c : *out) c *= loose_;
    return EdgeMatrix(std::move(out));
  }
  core::Result<std::shared_ptr<const SeededBounds>> seeded(
      std::size_t e, const std::vector<std::int32_t>& us, std::span<const double> seeds,
      const std::vector<std::int32_t>& vs) override {
    DTPLAN_TRY(EdgeMatrix m, matrix(e, us, vs));
    auto out = std::make_shared<SeededBounds>(seeded_minima(*m, seeds, vs.size()));
    for (std::size_t t = 0; t < vs.size(); ++t) {
      out->value[t] *= loose_;
      if (origins_ == Origins::kScrambled) {
        out->from[t] = static_cast<std::int32_t>((t * 7 + e * 3 + 1) % us.size());
      }
    }
    return std::shared_ptr<const SeededBounds>(std::move(out));
  }

 private:
  const RandomProblem& p_;
  double loose_;
  Origins origins_;
  std::size_t period_;
};

// Every assignment the allowed sets and the memory limit admit, with its cost (finite only).
std::vector<std::pair<double, std::vector<std::int32_t>>> plans(
    const RandomProblem& p, const std::vector<std::vector<char>>& allowed) {
  std::vector<std::pair<double, std::vector<std::int32_t>>> out;
  std::vector<std::int32_t> x(p.unary.size(), 0);
  while (true) {
    bool ok = true;
    std::int64_t bytes = 0;
    double cost = 0;
    for (std::size_t v = 0; v < x.size() && ok; ++v) {
      const auto s = static_cast<std::size_t>(x[v]);
      ok = allowed[v][s] != 0;
      bytes += p.bytes[v][s];
      cost += p.unary[v][s];
    }
    for (std::size_t e = 0; e < p.edges.size() && ok; ++e) {
      const auto u = static_cast<std::size_t>(p.edges[e].u);
      const auto v = static_cast<std::size_t>(p.edges[e].v);
      cost += p.edges[e].runs * p.costs[e][static_cast<std::size_t>(x[u]) * p.unary[v].size() +
                                           static_cast<std::size_t>(x[v])];
    }
    if (ok && bytes <= p.limit && std::isfinite(cost)) out.emplace_back(cost, x);
    std::size_t k = 0;
    while (k < x.size() && ++x[k] == static_cast<std::int32_t>(p.unary[k].size())) x[k++] = 0;
    if (k == x.size()) return out;
  }
}

PruneStats prune(const RandomProblem& p, std::vector<std::vector<char>>& allowed,
                 double loose = 1.0, Origins origins = Origins::kCheapest, std::size_t period = 0) {
  std::vector<PruneNode> nodes(p.unary.size());
  for (std::size_t v = 0; v < nodes.size(); ++v) {
    nodes[v].unary = p.unary[v];
    nodes[v].bytes = {p.bytes[v]};
    nodes[v].tied = p.tied[v] != 0;
  }
  Source source(p, loose, origins, period);
  return prune_by_bound(nodes, p.edges, source, allowed);
}

// Two free nodes of two strategies each (one byte each, no limit that binds, no tie) and one
// edge from node 0 to node 1 with the row-major `costs`.
RandomProblem two_free_nodes(std::vector<std::vector<double>> unary, std::vector<double> costs) {
  RandomProblem p;
  p.unary = std::move(unary);
  p.bytes = {{1, 1}, {1, 1}};
  p.edges = {{0, 1, 1}};
  p.costs = {std::move(costs)};
  p.allowed = {{1, 1}, {1, 1}};
  p.tied = {0, 0};
  p.limit = 2;
  return p;
}

// a's nodes, then b's (b's node indices shifted past a's), under a's memory limit plus b's.
RandomProblem side_by_side(const RandomProblem& a, const RandomProblem& b) {
  RandomProblem out = a;
  const auto shift = static_cast<solve::NodeIndex>(a.unary.size());
  out.unary.insert(out.unary.end(), b.unary.begin(), b.unary.end());
  out.bytes.insert(out.bytes.end(), b.bytes.begin(), b.bytes.end());
  out.allowed.insert(out.allowed.end(), b.allowed.begin(), b.allowed.end());
  out.tied.insert(out.tied.end(), b.tied.begin(), b.tied.end());
  for (const PruneEdge& e : b.edges) out.edges.push_back({e.u + shift, e.v + shift, e.runs});
  out.costs.insert(out.costs.end(), b.costs.begin(), b.costs.end());
  out.limit = a.limit + b.limit;
  return out;
}

}  // namespace

TEST_CASE("prune_by_bound: every optimal plan survives (brute force, 400 random problems)") {
  // The cheap pass's bounds exact, at half and at 0 (the exact pass then does all the work);
  // the planned component's origins followed or scrambled.
  for (double loose : {1.0, 0.5, 0.0}) {
    for (Origins origins : {Origins::kCheapest, Origins::kScrambled}) {
      std::int64_t dropped = 0;
      for (std::uint32_t seed = 0; seed < 400; ++seed) {
        INFO("seed " << seed << ", cheapest bounds times " << loose << ", origins "
                     << (origins == Origins::kCheapest ? "cheapest" : "scrambled"));
        const RandomProblem p = make_problem(seed);
        std::vector<std::vector<char>> allowed = p.allowed;
        dropped += prune(p, allowed, loose, origins).dropped;
        const auto before = plans(p, p.allowed);
        const auto after = plans(p, allowed);
        if (before.empty()) continue;
        double best = kInf;
        for (const auto& [cost, x] : before) best = std::min(best, cost);
        for (const auto& [cost, x] : before) {
          if (cost > best + 1e-9) continue;
          for (std::size_t v = 0; v < x.size(); ++v) {
            CHECK(allowed[v][static_cast<std::size_t>(x[v])] == 1);
          }
        }
        double best_after = kInf;
        for (const auto& [cost, x] : after) best_after = std::min(best_after, cost);
        CHECK(best_after == best);
      }
      CHECK(dropped > 0);  // the bound is not vacuous on these problems
    }
  }
}

TEST_CASE("prune_by_bound: the planned component bounds it where the greedy plan does not") {
  // In node order the greedy plan takes node 0's cheaper strategy 0, whose edge then costs 100
  // whatever node 1 takes; the plan followed back from node 1 takes node 0's strategy 1 and
  // costs 1. With that bound (slack 1 over LB 0) node 1's strategy 1 (local 50) goes, which
  // fixes node 1; node 0 alone then costs 100 or 1, and its strategy 0 goes too. With the
  // greedy bound (slack 100) nothing would.
  const RandomProblem p = two_free_nodes({{0, 1}, {0, 50}}, {100, 100, 0, 0});
  std::vector<std::vector<char>> allowed = p.allowed;
  CHECK(prune(p, allowed).dropped == 2);
  CHECK(allowed == std::vector<std::vector<char>>{{0, 1}, {1, 0}});
}

TEST_CASE("prune_by_bound: the forest bound carries a producer's cost to its consumer") {
  // Node 0's strategy 1 costs 40 but makes the edge free; its strategy 0 costs nothing but the
  // edge 50. The optimum is 40 (node 0 at 1, node 1 at 0), which the planned bound finds. The
  // walk's bound stays at 0 (each edge's cheapest entry is free, node 0's cheapest local is 0),
  // a slack of 40 that drops nothing. The forest bound carries node 0's cost along the edge:
  // G(1) = {40, 70}, so node 1's strategy 1 goes; node 1 is then fixed, node 0's local becomes
  // {50, 40} in the second pass, and its strategy 0 goes too.
  const RandomProblem p = two_free_nodes({{0, 40}, {0, 30}}, {50, 50, 0, 0});
  std::vector<std::vector<char>> allowed = p.allowed;
  CHECK(prune(p, allowed).dropped == 2);
  CHECK(allowed == std::vector<std::vector<char>>{{0, 1}, {1, 0}});
}

TEST_CASE("prune_by_bound: identical components are bounded once, different ones apart") {
  // A random problem beside itself, or beside a copy with one strategy's unary raised, with
  // edge e of the copy in e's class: each half must be pruned exactly as it is alone, so the
  // copy shares the first half's outcome only where nothing bound() reads differs.
  std::int64_t shared = 0;
  for (std::uint32_t seed = 0; seed < 300; ++seed) {
    INFO("seed " << seed);
    const RandomProblem a = make_problem(seed);
    RandomProblem b = a;
    if (seed % 2 == 1) {
      auto& u = b.unary[seed % b.unary.size()];
      u[seed % u.size()] += 25;
    }
    const RandomProblem both = side_by_side(a, b);
    std::vector<std::vector<char>> alone_a = a.allowed;
    std::vector<std::vector<char>> alone_b = b.allowed;
    std::vector<std::vector<char>> together = both.allowed;
    const std::int64_t dropped = prune(a, alone_a).dropped + prune(b, alone_b).dropped;
    CHECK(prune(both, together, 1.0, Origins::kCheapest, a.edges.size()).dropped == dropped);
    alone_a.insert(alone_a.end(), alone_b.begin(), alone_b.end());
    CHECK(together == alone_a);
    shared += seed % 2 == 0 ? dropped : 0;
  }
  CHECK(shared > 0);
}

TEST_CASE("prune_by_bound: a component with a tie endpoint keeps every strategy") {
  RandomProblem p = two_free_nodes({{0, 100}, {0, 100}}, {0, 5, 5, 0});
  std::vector<std::vector<char>> allowed = p.allowed;
  CHECK(prune(p, allowed).dropped == 2);  // strategy 1 costs 100 more on both nodes
  CHECK(allowed == std::vector<std::vector<char>>{{1, 0}, {1, 0}});
  p.tied = {0, 1};
  allowed = p.allowed;
  CHECK(prune(p, allowed).dropped == 0);
  CHECK(allowed == p.allowed);
}

TEST_CASE("prune_by_bound: the greedy plan keeps to the smallest memory terms") {
  // Node 0's cheap strategy 1 uses more memory: the bound is built on strategy 0 (memory-minimal),
  // so strategy 1, cheaper, must survive and strategy 2 (dearer by more than the slack) must not.
  RandomProblem p;
  p.unary = {{10, 0, 50}};
  p.bytes = {{1, 2, 1}};
  p.allowed = {{1, 1, 1}};
  p.tied = {0};
  p.limit = 1;
  std::vector<std::vector<char>> allowed = p.allowed;
  prune(p, allowed);
  CHECK(allowed == std::vector<std::vector<char>>{{1, 1, 0}});
}

}  // namespace dtplan::strategy::testing
