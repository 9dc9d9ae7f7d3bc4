// The plain exact solve of a simplified problem against exhaustive search: the optimum with and
// without memory rows (the relaxation first, then the Lagrangian windows), a bound beside it that
// never exceeds it, infeasible rows found complete, and the rows kept for explain_infeasible().

#include "solve/exact/reduced_solve.h"

#include <doctest/doctest.h>

#include "solve/evaluate.h"
#include "solve/generate.h"
#include "solve/lp/dual_bound.h"
#include "support/brute_force.h"
#include "support/solve_examples.h"

namespace dtplan::solve::detail {
namespace {

TEST_CASE("reduced solve: memory_chain's optimum by hand, the row binding or not") {
  // Within 11 bytes: a=0, c=1 at 6 (b either); within 20 the row does not bind: 2 at a=b=c=0.
  SolverStats stats;
  ReducedSolve r = solve_reduced(testing::memory_chain(11), {}, {}, stats);
  REQUIRE(r.sol.found);
  CHECK(r.sol.complete);
  CHECK(r.sol.value_us == 6);
  CHECK(r.sol.assignment[0] == 0);
  CHECK(r.sol.assignment[2] == 1);
  CHECK(r.bound <= 6 + rounding_slack(6));
  CHECK(r.rows.size() == 1);
  r = solve_reduced(testing::memory_chain(20), {}, {}, stats);
  REQUIRE(r.sol.found);
  CHECK(r.sol.value_us == 2);
  CHECK(r.sol.assignment == std::vector<LabelIndex>{0, 0, 0});
  // 1 byte: below the least the row can hold (2), so no labelling, and the search says so.
  r = solve_reduced(testing::memory_chain(1), {}, {}, stats);
  CHECK_FALSE(r.sol.found);
  CHECK(r.sol.complete);
}

TEST_CASE("reduced solve == brute force on random problems with and without memory rows") {
  int bound = 0;
  for (Shape shape : {Shape::kChain, Shape::kTree, Shape::kSkipChain, Shape::kGrid}) {
    for (std::int32_t rows : {0, 1, 2}) {
      for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        const Problem p = random_problem({.shape = shape,
                                          .nodes = shape == Shape::kGrid ? 9 : 7,
                                          .max_labels = 3,
                                          .forbidden_fraction = 0.1,
                                          .memory_rows = rows,
                                          .seed = seed});
        CAPTURE(static_cast<int>(shape));
        CAPTURE(rows);
        CAPTURE(seed);
        const testing::BruteForceResult best = testing::brute_force(p);
        SolverStats stats;
        const ReducedSolve r = solve_reduced(p, {}, {}, stats);
        CHECK(r.sol.complete);
        CHECK(r.rows.size() == static_cast<std::size_t>(rows));
        if (!best.feasible) {
          CHECK_FALSE(r.sol.found);
          continue;
        }
        REQUIRE(r.sol.found);
        CHECK(r.sol.value_us == best.objective_us);
        const auto ev = evaluate(p, r.sol.assignment);
        REQUIRE(ev.ok());
        CHECK(ev->feasible());
        CHECK(ev->total_us == best.objective_us);
        const double slack = rounding_slack(best.objective_us);
        CHECK(r.bound <= best.objective_us + slack);
        CHECK(r.sol.lower_bound_us <= best.objective_us + slack);
        bound += rows > 0 ? 1 : 0;
      }
    }
  }
  CHECK(bound > 20);  // most cases with rows are feasible: the rows' path ran
}

}  // namespace
}  // namespace dtplan::solve::detail
