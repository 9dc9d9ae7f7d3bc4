// The LP bound and label fixing against exhaustive search: the bound never exceeds the optimum,
// each label's bound never exceeds the cheapest labelling using it, the bound is tight on trees,
// and the pins keep every optimum.

#include "solve/lp/dual_bound.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>

#include "solve/evaluate.h"
#include "solve/generate.h"
#include "support/brute_force.h"

namespace dtplan::solve::detail {
namespace {

constexpr auto kNoDeadline = Clock::time_point::max();

TEST_CASE("dual bound: the header's chain") {
  // a - b - c; edges cost 0 on equal labels, 1 otherwise; a = (0, 5). Optimum (0,0,0) = 0.
  // Cheapest with b=1: a=0, c=1 -> 1; with c=1: a=b=0 -> 1; with a=1: 5 + b=c=1 -> 5.
  Problem p;
  p.nodes = {{"a", {0, 5}}, {"b", {0, 0}}, {"c", {0, 0}}};
  p.edges = {{0, 1, 0, {0, 1, 1, 0}}, {1, 2, 0, {0, 1, 1, 0}}};
  const DualBound d = dual_bound(p, {.max_passes = 50, .deadline = kNoDeadline});
  CHECK(d.lower_bound_us == 0);
  CHECK(d.upper_us == 0);
  CHECK(d.labels == std::vector<LabelIndex>{0, 0, 0});
  CHECK(d.label_bound_us[0][1] == doctest::Approx(5));
  CHECK(d.label_bound_us[1][1] == doctest::Approx(1));
  CHECK(d.label_bound_us[2][1] == doctest::Approx(1));
  // Within 0.5 of the optimum only label 0 is left anywhere; within 1, every label 1 but a's.
  std::vector<Pin> pins = bound_pins(d, 0.5);
  REQUIRE(pins.size() == 3);
  for (const Pin& pin : pins) CHECK(pin.labels == std::vector<LabelIndex>{0});
  pins = bound_pins(d, 1);
  REQUIRE(pins.size() == 1);
  CHECK(pins[0].node == 0);
}

TEST_CASE("dual bound: never above the optimum, label by label, on random problems") {
  for (Shape shape : {Shape::kChain, Shape::kTree, Shape::kSkipChain, Shape::kGrid}) {
    for (double forbidden : {0.0, 0.2}) {
      for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        const Problem p = random_problem({.shape = shape,
                                          .nodes = 7,
                                          .min_labels = 2,
                                          .max_labels = 4,
                                          .forbidden_fraction = forbidden,
                                          .seed = seed});
        CAPTURE(static_cast<int>(shape));
        CAPTURE(forbidden);
        CAPTURE(seed);
        const testing::BruteForceResult best = testing::brute_force(p);
        const DualBound d = dual_bound(p, {.max_passes = 100, .deadline = kNoDeadline});
        if (!best.feasible) {
          CHECK(d.upper_us == std::numeric_limits<double>::infinity());
          continue;
        }
        const double tol = 1e-9 * (std::fabs(best.objective_us) + 1);
        CHECK(d.lower_bound_us <= best.objective_us + tol);
        CHECK(d.upper_us >= best.objective_us - tol);
        if (d.upper_us < std::numeric_limits<double>::infinity()) {
          CHECK(evaluate(p, d.labels).value().total_us == doctest::Approx(d.upper_us));
        }
        // Trees and chains: the local polytope is exact, so the bound reaches the optimum.
        if (shape == Shape::kChain || shape == Shape::kTree) {
          CHECK(d.lower_bound_us == doctest::Approx(best.objective_us));
        }
        for (std::size_t v = 0; v < p.nodes.size(); ++v) {
          for (std::size_t a = 0; a < p.nodes[v].cost_us.size(); ++a) {
            Problem one = p;
            one.pins.push_back({static_cast<NodeIndex>(v), {static_cast<LabelIndex>(a)}});
            const testing::BruteForceResult with = testing::brute_force(one);
            const double cheapest =
                with.feasible ? with.objective_us : std::numeric_limits<double>::infinity();
            CHECK(d.label_bound_us[v][a] <= cheapest + tol);
          }
        }
        // The pins at the optimum keep the optimum brute force found.
        for (const Pin& pin : bound_pins(d, best.objective_us)) {
          CHECK(std::find(pin.labels.begin(), pin.labels.end(), best.labels[pin.node]) !=
                pin.labels.end());
        }
      }
    }
  }
}

TEST_CASE("dual bound: kept_labels counts what a window's pins keep") {
  // Without repeat groups, bound_pins keeps on each pinned node exactly the labels counted, and
  // every label of the nodes it leaves alone.
  const Problem p = random_problem(
      {.shape = Shape::kGrid, .nodes = 9, .min_labels = 3, .max_labels = 5, .seed = 11});
  const DualBound d = dual_bound(p, {.max_passes = 50, .deadline = kNoDeadline});
  for (const double above : {0.0, 0.5, 2.0, 10.0, 1e9}) {
    const double t = d.lower_bound_us + above;
    std::int64_t kept = 0;
    std::vector<char> pinned(p.nodes.size(), 0);
    for (const Pin& pin : bound_pins(d, t)) {
      kept += static_cast<std::int64_t>(pin.labels.size());
      pinned[pin.node] = 1;
    }
    for (std::size_t v = 0; v < p.nodes.size(); ++v) {
      if (!pinned[v]) kept += static_cast<std::int64_t>(p.nodes[v].cost_us.size());
    }
    CAPTURE(above);
    CHECK(kept_labels(d, t) == kept);
  }
  CHECK(kept_labels(d, d.lower_bound_us - 1) == 0);
}

TEST_CASE("dual bound: a passed deadline proves nothing and pins nothing") {
  const Problem p = random_problem(
      {.shape = Shape::kGrid, .nodes = 9, .min_labels = 3, .max_labels = 4, .seed = 5});
  const DualBound d =
      dual_bound(p, {.max_passes = 100, .deadline = Clock::now() - std::chrono::seconds(1)});
  CHECK(d.passes == 0);
  CHECK(d.lower_bound_us == -std::numeric_limits<double>::infinity());
  REQUIRE(d.label_bound_us.size() == p.nodes.size());
  for (std::size_t v = 0; v < p.nodes.size(); ++v) {
    CHECK(d.label_bound_us[v].size() == p.nodes[v].cost_us.size());
  }
  CHECK(bound_pins(d, 0).empty());
  // ... and settles no labelling: -inf meets no cost (its 1e-9 relative slack would be +inf; the
  // solver took that for a proof when the time limit stopped the LP before its first pass).
  CHECK_FALSE(meets_bound(0, d.lower_bound_us));
  CHECK_FALSE(meets_bound(1e6, d.lower_bound_us));
}

TEST_CASE("dual bound: meets_bound allows a 1e-9 relative slack, no more") {
  // bound 1000: slack 1e-9 x (1000 + 1) = 1.001e-6.
  CHECK(meets_bound(1000, 1000));
  CHECK(meets_bound(1000 + 1e-6, 1000));
  CHECK_FALSE(meets_bound(1000 + 2e-6, 1000));
  CHECK(meets_bound(999, 1000));  // a bound above the cost (rounding) meets it too
  // bound 0: slack 1e-9.
  CHECK(meets_bound(0.5e-9, 0));
  CHECK_FALSE(meets_bound(2e-9, 0));
  CHECK_FALSE(meets_bound(std::numeric_limits<double>::infinity(), 1000));
  CHECK_FALSE(meets_bound(1000, std::numeric_limits<double>::quiet_NaN()));
}

// Calls f(problem, its brute-force optimum) on 12 frustrated 3x3 grids: the LP is rarely tight,
// its bound creeps up pass by pass.
template <typename F>
void for_each_frustrated_grid(F f) {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const Problem p = random_problem(
        {.shape = Shape::kGrid, .nodes = 9, .min_labels = 3, .max_labels = 4, .seed = seed});
    CAPTURE(seed);
    f(p, testing::brute_force(p).objective_us);
  }
}

TEST_CASE("dual bound: tight_only gives up on a gap it cannot close, never below the optimum") {
  int shorter = 0;
  for_each_frustrated_grid([&](const Problem& p, double best) {
    const DualBound full = dual_bound(p, {.max_passes = 60, .deadline = kNoDeadline});
    const DualBound quick =
        dual_bound(p, {.max_passes = 60, .deadline = kNoDeadline, .tight_only = true});
    CHECK(quick.passes <= full.passes);
    CHECK(quick.lower_bound_us <= best + 1e-9 * (std::fabs(best) + 1));
    CHECK(quick.lower_bound_us <= full.lower_bound_us);
    if (quick.passes < full.passes) ++shorter;
  });
  CHECK(shorter > 0);
}

TEST_CASE("dual bound: until_stalled stops where the bound stalls, a prefix of the full run") {
  // On frustrated grids (the LP is not tight) the passes run to 400, and again until stalled: the
  // stalled run is the full run cut short (the same passes: a bound no higher, the labelling kept
  // no cheaper), where it stops early at least 5 passes after its labelling was decoded; on some
  // grids the bound creeps on long after the labelling settled.
  int shorter = 0;
  for_each_frustrated_grid([&](const Problem& p, double best) {
    const DualBound full = dual_bound(p, {.max_passes = 400, .deadline = kNoDeadline});
    const DualBound stalled =
        dual_bound(p, {.max_passes = 400, .deadline = kNoDeadline, .until_stalled = true});
    CHECK(stalled.passes <= full.passes);
    CHECK(stalled.lower_bound_us <= full.lower_bound_us);
    CHECK(stalled.lower_bound_us <= best + 1e-9 * (std::fabs(best) + 1));
    CHECK(stalled.upper_us >= full.upper_us);
    if (stalled.passes == full.passes) return;
    ++shorter;
    CHECK(stalled.passes >= 5);
    const DualBound same = dual_bound(p, {.max_passes = stalled.passes, .deadline = kNoDeadline});
    CHECK(same.lower_bound_us == stalled.lower_bound_us);
    CHECK(same.labels == stalled.labels);
  });
  MESSAGE("stopped early on " << shorter << " of 12 grids");
  CHECK(shorter >= 2);
}

TEST_CASE("dual bound: the passes stop once the bound reaches enough_us") {
  // With enough_us at the bound the full run reaches after some passes (here its value after
  // its second pass), the passes stop at the first whose bound is at least that, and that bound
  // is still below the optimum.
  int stopped_sooner = 0;
  for_each_frustrated_grid([&](const Problem& p, double best) {
    const DualBound full = dual_bound(p, {.max_passes = 60, .deadline = kNoDeadline});
    if (full.passes < 3) return;
    const double enough = dual_bound(p, {.max_passes = 2, .deadline = kNoDeadline}).lower_bound_us;
    const DualBound early =
        dual_bound(p, {.max_passes = 60, .deadline = kNoDeadline, .enough_us = enough});
    CHECK(early.passes <= 2);
    CHECK(early.lower_bound_us >= enough);
    CHECK(early.lower_bound_us <= best + 1e-9 * (std::fabs(best) + 1));
    if (early.passes < full.passes) ++stopped_sooner;
    // Out of reach, it changes nothing.
    const DualBound same =
        dual_bound(p, {.max_passes = 60, .deadline = kNoDeadline, .enough_us = best + 1});
    CHECK(same.passes == full.passes);
    CHECK(same.lower_bound_us == full.lower_bound_us);
  });
  CHECK(stopped_sooner > 0);
}

TEST_CASE("dual bound: with a relative gap, the passes stop within it of a decoded labelling") {
  // The frustrated grids (no memory rows: every decoded labelling qualifies), gap 20%: the run
  // stops at the first pass whose bound is within 20% of its labelling, sooner than without.
  int stopped_sooner = 0;
  for_each_frustrated_grid([&](const Problem& p, double best) {
    const DualBound full = dual_bound(p, {.max_passes = 60, .deadline = kNoDeadline});
    const DualBound early = dual_bound(
        p,
        {.max_passes = 60, .deadline = kNoDeadline, .enough_us = kForbidden, .relative_gap = 0.2});
    CHECK(early.passes <= full.passes);
    CHECK(early.lower_bound_us <= best + 1e-9 * (std::fabs(best) + 1));
    if (early.passes < full.passes) {
      CHECK(early.upper_us - early.lower_bound_us <= 0.2 * std::fabs(early.upper_us));
      ++stopped_sooner;
    }
  });
  CHECK(stopped_sooner > 0);
}

TEST_CASE("dual bound: any warm start is sound; its own messages restart at the bound") {
  // Random and non-finite λ still bound every labelling from below (any λ is a
  // reparametrization); a run started from a converged run's messages reaches that run's bound
  // in far fewer passes.
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> any(-50, 50);
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const Problem p = random_problem({.shape = Shape::kGrid,
                                      .nodes = 9,
                                      .min_labels = 3,
                                      .max_labels = 4,
                                      .forbidden_fraction = 0.1,
                                      .seed = seed});
    CAPTURE(seed);
    const testing::BruteForceResult best = testing::brute_force(p);
    if (!best.feasible) continue;
    const double slack = 1e-9 * (std::fabs(best.objective_us) + 1);
    EdgeMessages noise(p.edges.size());
    for (std::size_t e = 0; e < p.edges.size(); ++e) {
      for (std::size_t end = 0; end < 2; ++end) {
        const Node& n = p.nodes[end == 0 ? p.edges[e].from : p.edges[e].to];
        for (std::size_t a = 0; a < n.cost_us.size(); ++a) {
          noise[e][end].push_back(a == 0 && e % 3 == 0 ? std::numeric_limits<double>::infinity()
                                                       : any(rng));
        }
      }
    }
    const DualBound noisy =
        dual_bound(p, {.max_passes = 3, .deadline = kNoDeadline, .warm = &noise});
    CHECK(noisy.passes >= 1);
    CHECK(noisy.lower_bound_us <= best.objective_us + slack);
    const DualBound cold = dual_bound(p, {.max_passes = 200, .deadline = kNoDeadline});
    const DualBound warm =
        dual_bound(p, {.max_passes = 200, .deadline = kNoDeadline, .warm = &cold.messages});
    CHECK(warm.lower_bound_us <= best.objective_us + slack);
    CHECK(warm.lower_bound_us >= cold.lower_bound_us - 1e-6 * (std::fabs(cold.lower_bound_us) + 1));
    CHECK(warm.passes <= 3);
    // The pins at the optimum keep the optimum (label bounds from warm messages are sound).
    for (const Pin& pin : bound_pins(warm, best.objective_us)) {
      CHECK(std::find(pin.labels.begin(), pin.labels.end(), best.labels[pin.node]) !=
            pin.labels.end());
    }
  }
}

}  // namespace
}  // namespace dtplan::solve::detail
