// The LP bound phase of bound fixing: when it runs and what for (bound_use), its pass budget
// (bound_passes), and its bound (lp_bound) against exhaustive search: never above the optimum,
// tight on chains, its labelling costing what it says, and stopping early at a good incumbent.

#include "solve/exact/lp_phase.h"

#include <doctest/doctest.h>

#include <limits>
#include <string>
#include <vector>

#include "solve/evaluate.h"
#include "solve/generate.h"
#include "support/brute_force.h"
#include "support/solve_examples.h"

namespace dtplan::solve::detail {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Free nodes with these label counts, no edges.
Problem with_labels(const std::vector<int>& counts) {
  Problem p;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    p.nodes.push_back(
        {"n" + std::to_string(i), std::vector<double>(static_cast<std::size_t>(counts[i]), 0.0)});
  }
  return p;
}

SolveOptions fixing(BoundFixing mode) {
  SolveOptions o;
  o.bound_fixing = mode;
  return o;
}

TEST_CASE("lp phase: bound_use follows the option, then the median node's label count") {
  const SolveOptions automatic{};
  const Problem narrow = with_labels({2, 3, 30});                // median 3
  const Problem wide = with_labels({2, 25, 30});                 // median 25 > kBoundFixingLabels
  const Problem at = with_labels({100, kBoundFixingLabels, 2});  // median 24: not more
  CHECK(bound_use(automatic, narrow) == BoundUse::kTightOnly);
  CHECK(bound_use(automatic, wide) == BoundUse::kWindows);
  CHECK(bound_use(automatic, at) == BoundUse::kTightOnly);
  CHECK(bound_use(fixing(BoundFixing::kOn), narrow) == BoundUse::kWindows);
  CHECK(bound_use(fixing(BoundFixing::kOff), wide) == BoundUse::kNone);
  // The LP reads unaries and edges only: pins and followers (which simplify folds in) stop it.
  Problem pinned = wide;
  pinned.pins = {{1, {0}}};
  CHECK(bound_use(fixing(BoundFixing::kOn), pinned) == BoundUse::kNone);
  Problem followed = wide;
  followed.followers = {{1, 0, {0, 1}}};
  CHECK(bound_use(fixing(BoundFixing::kOn), followed) == BoundUse::kNone);
  CHECK(bound_use(fixing(BoundFixing::kOn), Problem{}) == BoundUse::kNone);
}

TEST_CASE("lp phase: bound_passes, 60 without windows, else by matrix entries in [60, 1000]") {
  const Problem small = testing::two_nodes();
  CHECK(bound_passes(small, false) == 60);
  CHECK(bound_passes(small, true) == 1000);  // 3e9 / 5 entries, capped
  Problem big = with_labels({2000, 2000});
  big.edges.push_back({0, 1, 0, std::vector<double>(4'000'000, 0.0)});
  CHECK(bound_passes(big, false) == 60);
  CHECK(bound_passes(big, true) == 749);  // 3e9 / (1 + 4e6)
}

TEST_CASE("lp phase: lp_bound never above the optimum, tight on chains, its labels priced") {
  const EngineOptions eo{};
  for (Shape shape : {Shape::kChain, Shape::kSkipChain, Shape::kGrid}) {
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
      Problem p = random_problem(
          {.shape = shape, .nodes = shape == Shape::kGrid ? 9 : 7, .max_labels = 4, .seed = seed});
      CAPTURE(static_cast<int>(shape));
      CAPTURE(seed);
      const testing::BruteForceResult best = testing::brute_force(p);
      REQUIRE(best.feasible);
      const double slack = rounding_slack(best.objective_us);
      for (BoundUse use : {BoundUse::kTightOnly, BoundUse::kWindows}) {
        SolverStats stats;
        const DualBound d = lp_bound(p, Answer{}, SolveOptions{}, eo, use, std::nullopt, stats);
        CHECK(d.passes > 0);
        CHECK(stats.priced_passes == 0);
        CHECK(d.lower_bound_us <= best.objective_us + slack);
        REQUIRE(d.upper_us < kInf);
        CHECK(d.upper_us >= best.objective_us);
        CHECK(evaluate(p, d.labels).value().total_us == doctest::Approx(d.upper_us));
        if (shape == Shape::kChain) CHECK(meets_bound(best.objective_us, d.lower_bound_us));
      }
      // An incumbent at the optimum: the passes stop once the bound settles it, never later.
      Answer optimum;
      optimum.labels = best.labels;
      optimum.cost_us = best.objective_us;
      SolverStats stats;
      const DualBound full =
          lp_bound(p, Answer{}, SolveOptions{}, eo, BoundUse::kWindows, std::nullopt, stats);
      const DualBound early =
          lp_bound(p, optimum, SolveOptions{}, eo, BoundUse::kWindows, std::nullopt, stats);
      CHECK(early.passes <= full.passes);
      CHECK(early.lower_bound_us <= best.objective_us + slack);
      if (shape == Shape::kChain) CHECK(meets_bound(best.objective_us, early.lower_bound_us));
    }
  }
}

TEST_CASE("lp phase: lp_bound stays below the optimum of a frustrated stack it cannot close") {
  // Every layer's triangle costs 1 at least, while the LP pays 0 at 1/2 on every label.
  Problem p = testing::frustrated_stack(4);
  SolverStats stats;
  const DualBound d = lp_bound(p, Answer{}, SolveOptions{}, EngineOptions{}, BoundUse::kWindows,
                               std::nullopt, stats);
  CHECK(d.lower_bound_us < 4 - 1);
  CHECK(d.upper_us >= 4);
}

TEST_CASE("lp phase: lp_bound from a short chain's start, warm and priced at its rate") {
  // memory_chain(11): optimum 6 within the budget; without the row, 2.
  Problem p = testing::memory_chain(11);
  const EngineOptions eo{};
  SolverStats stats;
  const DualBound cold =
      lp_bound(p, Answer{}, SolveOptions{}, eo, BoundUse::kWindows, std::nullopt, stats);
  CHECK(cold.lower_bound_us == doctest::Approx(2));  // a chain: tight, the row ignored
  ShortChainStart start;
  start.messages = cold.messages;
  const DualBound warm =
      lp_bound(p, Answer{}, SolveOptions{}, eo, BoundUse::kWindows, start, stats);
  CHECK(stats.priced_passes == 0);
  CHECK(warm.passes <= cold.passes);
  CHECK(warm.lower_bound_us == doctest::Approx(2));
  start.rate = {0.25};
  const DualBound priced =
      lp_bound(p, Answer{}, SolveOptions{}, eo, BoundUse::kWindows, start, stats);
  CHECK(stats.priced_passes == priced.passes);
  CHECK(priced.passes > 0);
  // A bound on the labellings that meet the row: at most their optimum, 6.
  CHECK(priced.lower_bound_us <= 6 + rounding_slack(6));
  CHECK(priced.lower_bound_us >= cold.lower_bound_us - rounding_slack(2));
}

}  // namespace
}  // namespace dtplan::solve::detail
