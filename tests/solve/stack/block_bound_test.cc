// The block bound of long stacks: exact layers recover what the LP loses inside each one (a
// frustrated triangle per layer, by hand), periodic messages copy the centre block's, alike parts
// are solved once, the parts' labellings make a labelling, and on random layered stacks the bound
// never exceeds the optimum and never falls below the LP sum of the same (periodic) messages.

#include "solve/stack/block_bound.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "solve/evaluate.h"
#include "solve/generate.h"
#include "solve/simplify.h"
#include "solve/solver.h"
#include "support/solve_examples.h"

namespace dtplan::solve::detail {
namespace {

const auto kNoDeadline = std::chrono::steady_clock::time_point::max();

// The exact solver on a part, counting the calls.
PartSolve exact_parts(int& calls) {
  return [&calls](const Problem& q) {
    ++calls;
    auto r = make_exact_solver()->solve(q, {});
    if (!r.ok()) return PartSolution{};
    return PartSolution{r->lower_bound_us, r->labels};
  };
}

// Σ min θ'_v + Σ min θ'_e of the messages: the LP's bound for them (dual_bound.h).
double lp_sum(const Problem& p, const EdgeMessages& m) {
  auto lambda = [](const std::vector<double>& end, std::size_t l) {
    return l < end.size() && std::isfinite(end[l]) ? end[l] : 0.0;
  };
  std::vector<std::vector<double>> unary;
  for (const Node& n : p.nodes) unary.push_back(n.cost_us);
  double sum = 0;
  for (std::size_t e = 0; e < p.edges.size(); ++e) {
    const Edge& edge = p.edges[e];
    const std::size_t cols = p.nodes[static_cast<std::size_t>(edge.to)].cost_us.size();
    double least = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < edge.cost_us.size(); ++i) {
      least =
          std::min(least, edge.cost_us[i] - lambda(m[e][0], i / cols) - lambda(m[e][1], i % cols));
    }
    sum += least;
    for (std::size_t l = 0; l < unary[static_cast<std::size_t>(edge.from)].size(); ++l) {
      unary[static_cast<std::size_t>(edge.from)][l] += lambda(m[e][0], l);
    }
    for (std::size_t l = 0; l < cols; ++l)
      unary[static_cast<std::size_t>(edge.to)][l] += lambda(m[e][1], l);
  }
  for (const auto& u : unary) sum += *std::min_element(u.begin(), u.end());
  return sum;
}

TEST_CASE("block bound: exact layers recover what the LP loses inside each one, by hand") {
  // 6 frustrated layers: every layer costs at least 1 (two of its three nodes agree), and one
  // labelling repeated in every layer (hub 0, layer nodes 0, 0, 1) makes the edges between layers
  // and to the hub free: the optimum is 6. The LP pays nothing for the triangles, so its bound
  // stays near 0; with zero messages the parts are {hub, layer 0} (optimum 1) and layers 1..5
  // (1 each), the edges between parts at their least (0): the block bound is 6, the optimum.
  const Problem p = testing::frustrated_stack(6);
  const Solution best = make_exact_solver()->solve(p, {}).value();
  REQUIRE(best.objective_us == 6);
  const DualBound lp = dual_bound(p, {.max_passes = 50, .deadline = kNoDeadline});
  CHECK(lp.lower_bound_us < 1);
  int calls = 0;
  BlockBoundStats stats;
  const EdgeMessages zero(p.edges.size());
  const BlockBound b = block_bound(p, zero, exact_parts(calls), kNoDeadline, stats);
  CHECK(b.lower_bound_us == 6);
  // Every layer takes its part's optimum (the lowest labels costing 1: 0, 0, 1), so the edges
  // between layers agree: the parts' labellings together are an optimum.
  REQUIRE(b.labels.size() == p.nodes.size());
  CHECK(evaluate(p, b.labels).value().total_us == 6);
  // Alike parts are solved once: {hub, layer 0} and layer 1 (layers 2..5 equal layer 1).
  CHECK(stats.solved == 2);
  CHECK(stats.reused == 4);
  CHECK(calls == 2);
  // From the LP's own messages the bound is still valid, and far above the LP's.
  stats = {};
  const double from_lp =
      block_bound(p, lp.messages, exact_parts(calls), kNoDeadline, stats).lower_bound_us;
  CHECK(from_lp <= 6 + 1e-9);
  CHECK(from_lp >= lp.lower_bound_us + 4);
}

TEST_CASE("block bound: periodic messages copy the centre block's among the middle blocks") {
  // 5 layers: the middle blocks are 1..3, the centre 2. Every edge's messages are its index: the
  // triangle edges of layers 1..3, the edges 1 -> 2 and 2 -> 3 and the hub's edges into layers
  // 1..3 take layer 2's (or the edge 2 -> 3's); edges touching layer 0 or 4 keep their own.
  const Problem p = testing::frustrated_stack(5);
  EdgeMessages m(p.edges.size());
  for (std::size_t e = 0; e < m.size(); ++e) {
    m[e][0].assign(2, static_cast<double>(e));
    m[e][1].assign(2, static_cast<double>(e) + 0.5);
  }
  const EdgeMessages out = periodic_messages(p, m);
  // Edges in order per layer b: 3 triangle edges, the hub's, then (b > 0) the one from layer b-1.
  auto first_edge = [](int b) { return b == 0 ? 0 : 4 + 5 * (b - 1); };
  for (int b = 0; b < 5; ++b) {
    CAPTURE(b);
    const int e0 = first_edge(b);
    const int centre = first_edge(2);
    for (int k = 0; k < 4; ++k) {
      const bool middle = b >= 1 && b <= 3;
      CHECK(out[e0 + k][0][0] == static_cast<double>(middle ? centre + k : e0 + k));
    }
    if (b == 0) continue;
    // The edge from layer b - 1 into layer b: copied where both layers are middle ones.
    const int into = e0 + 4;
    const bool both_middle = b - 1 >= 1 && b <= 3;
    CHECK(out[into][1][0] == static_cast<double>(both_middle ? first_edge(3) + 4 : into) + 0.5);
  }
}

TEST_CASE("block bound: nothing proven past the deadline, without a part's bound or repeats") {
  const Problem p = testing::frustrated_stack(4);
  const EdgeMessages zero(p.edges.size());
  int calls = 0;
  BlockBoundStats stats;
  const double none = -std::numeric_limits<double>::infinity();
  const auto past = std::chrono::steady_clock::time_point::min();
  const BlockBound late = block_bound(p, zero, exact_parts(calls), past, stats);
  CHECK(late.lower_bound_us == none);
  CHECK(late.labels.empty());
  CHECK(calls == 0);
  const PartSolve unknown = [](const Problem&) { return PartSolution{}; };
  CHECK(block_bound(p, zero, unknown, kNoDeadline, stats).lower_bound_us == none);
  // A part bounded but not labelled: the bound stands, no labelling.
  const PartSolve unlabelled = [](const Problem&) { return PartSolution{1, {}}; };
  const BlockBound bare = block_bound(p, zero, unlabelled, kNoDeadline, stats);
  CHECK(bare.lower_bound_us == 4);
  CHECK(bare.labels.empty());
  Problem flat = p;
  flat.repeats.clear();
  CHECK(block_bound(flat, zero, exact_parts(calls), kNoDeadline, stats).lower_bound_us == none);
}

TEST_CASE("block bound: on layered stacks, between the LP sum of its messages and the optimum") {
  // Simplified stacks of 5-8 layers, messages from 0 to 30 LP passes: the block bound never
  // exceeds the exact optimum and is at least the LP sum of the periodic messages (each part's
  // optimum is at least the sum of its terms' least values); it is strictly above it on most.
  int above = 0;
  int runs = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    CAPTURE(seed);
    const Problem raw = layered_problem({.layers = 5 + static_cast<std::int32_t>(seed % 4),
                                         .nodes_per_layer = 12,
                                         .label_scale = 1.5,
                                         .seed = seed});
    const Problem p = simplify(raw).value().problem;
    if (p.repeats.empty()) continue;
    const Solution best = make_exact_solver()->solve(p, {}).value();
    REQUIRE(best.optimal);
    for (const std::int32_t passes : {0, 3, 30}) {
      CAPTURE(passes);
      const EdgeMessages m =
          passes == 0 ? EdgeMessages(p.edges.size())
                      : dual_bound(p, {.max_passes = passes, .deadline = kNoDeadline}).messages;
      int calls = 0;
      BlockBoundStats stats;
      const BlockBound bb = block_bound(p, m, exact_parts(calls), kNoDeadline, stats);
      const double b = bb.lower_bound_us;
      REQUIRE(bb.labels.size() == p.nodes.size());
      CHECK(evaluate(p, bb.labels).value().total_us >= best.objective_us);
      const double lp = lp_sum(p, periodic_messages(p, m));
      const double slack = 1e-9 * (std::fabs(best.objective_us) + 1);
      CHECK(b <= best.objective_us + slack);
      CHECK(b >= lp - slack);
      ++runs;
      if (b > lp + 1e-6) ++above;
    }
  }
  MESSAGE("above the LP sum: " << above << " of " << runs);
  REQUIRE(runs >= 30);
  CHECK(above * 2 >= runs);
}

}  // namespace
}  // namespace dtplan::solve::detail
