// Bound fixing against exhaustive search: the optimum proven, with the LP tight or not, with its
// windows or only where the LP is tight, with memory rows, with the caller's own LP bound, and
// within the gap asked for.

#include "solve/exact/bound_fixing.h"

#include <doctest/doctest.h>

#include <cmath>

#include "solve/evaluate.h"
#include "solve/generate.h"
#include "support/brute_force.h"
#include "support/solve_examples.h"

namespace dtplan::solve::detail {
namespace {

Answer fixed_ok(const Problem& p, BoundUse use, const SolveOptions& options = {},
                const DualBound* given = nullptr) {
  SolverStats stats;
  auto a = solve_fixed(p, options, EngineOptions{}, stats, use, given);
  REQUIRE_MESSAGE(a.ok(), (a.ok() ? std::string() : a.error().message));
  return std::move(a).value();
}

TEST_CASE("bound fixing == brute force on random problems, both uses, with memory rows") {
  int windows = 0;
  for (Shape shape : {Shape::kChain, Shape::kTree, Shape::kSkipChain, Shape::kGrid}) {
    for (std::int32_t rows : {0, 1}) {
      for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        const Problem p = random_problem({.shape = shape,
                                          .nodes = shape == Shape::kGrid ? 9 : 7,
                                          .max_labels = 4,
                                          .memory_rows = rows,
                                          .seed = seed});
        CAPTURE(static_cast<int>(shape));
        CAPTURE(rows);
        CAPTURE(seed);
        const testing::BruteForceResult best = testing::brute_force(p);
        for (BoundUse use : {BoundUse::kTightOnly, BoundUse::kWindows}) {
          CAPTURE(static_cast<int>(use));
          SolverStats stats;
          auto fixed = solve_fixed(p, {}, EngineOptions{}, stats, use);
          REQUIRE(fixed.ok());
          const Answer& a = *fixed;
          CHECK(stats.dual_passes > 0);
          if (!best.feasible) {
            CHECK(a.labels.empty());
            continue;
          }
          REQUIRE_FALSE(a.labels.empty());
          CHECK(a.proof == Proof::kOptimal);
          CHECK(a.cost_us == best.objective_us);
          const auto ev = evaluate(p, a.labels);
          REQUIRE(ev.ok());
          CHECK(ev->feasible());
          CHECK(ev->total_us == best.objective_us);
          CHECK(a.bound <= best.objective_us + rounding_slack(best.objective_us));
          windows += stats.labels_fixed > 0 ? 1 : 0;
        }
      }
    }
  }
  CHECK(windows > 0);  // some LP was loose and its windows fixed labels
}

TEST_CASE("bound fixing: a frustrated stack, the LP loose in every layer, solved to its optimum") {
  const Problem p = testing::frustrated_stack(5);
  for (BoundUse use : {BoundUse::kTightOnly, BoundUse::kWindows}) {
    const Answer a = fixed_ok(p, use);
    CHECK(a.proof == Proof::kOptimal);
    CHECK(a.cost_us == 5);
    CHECK(evaluate(p, a.labels).value().total_us == 5);
  }
}

TEST_CASE("bound fixing: the caller's LP bound is used, not run again") {
  const Problem p = testing::memory_chain(11);
  const DualBound given = dual_bound(p, {.max_passes = 50});
  SolverStats stats;
  auto a = solve_fixed(p, {}, EngineOptions{}, stats, BoundUse::kWindows, &given);
  REQUIRE(a.ok());
  CHECK(stats.dual_passes == given.passes);
  CHECK(a->cost_us == 6);  // within 11 bytes (the LP's own labelling, 2, breaks the row)
  CHECK(a->proof == Proof::kOptimal);

  // A bound proving infeasibility (every labelling forbidden): no labels, kInfeasible.
  Problem none = testing::two_nodes();
  none.edges[0].cost_us = {kForbidden, kForbidden, kForbidden, kForbidden};
  const DualBound inf = dual_bound(none, {.max_passes = 10});
  REQUIRE_FALSE(inf.lower_bound_us < kForbidden);
  const Answer b = fixed_ok(none, BoundUse::kWindows, {}, &inf);
  CHECK(b.labels.empty());
  CHECK(b.proof == Proof::kInfeasible);
}

TEST_CASE("bound fixing: with a relative gap, an answer within it of its bound") {
  SolveOptions gap;
  gap.relative_gap = 0.05;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const Problem p = random_problem(
        {.shape = Shape::kGrid, .nodes = 9, .max_labels = 4, .max_cost = 20, .seed = seed});
    CAPTURE(seed);
    const testing::BruteForceResult best = testing::brute_force(p);
    REQUIRE(best.feasible);
    const Answer a = fixed_ok(p, BoundUse::kWindows, gap);
    REQUIRE_FALSE(a.labels.empty());
    CHECK(a.proof != Proof::kNone);
    CHECK(a.bound <= best.objective_us + rounding_slack(best.objective_us));
    CHECK(a.cost_us >= best.objective_us);
    CHECK(a.cost_us - a.bound <=
          gap.relative_gap * std::fabs(a.cost_us) + rounding_slack(a.cost_us));
  }
}

}  // namespace
}  // namespace dtplan::solve::detail
