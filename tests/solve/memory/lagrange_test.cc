// The Lagrangian dual of the memory rows: lagrange.h's worked example, and valid bounds on random
// problems.

#include "solve/memory/lagrange.h"

#include <doctest/doctest.h>

#include "solve/generate.h"
#include "support/brute_force.h"
#include "support/solve_examples.h"

namespace dtplan::solve::detail {
namespace {

EngineSolve exact() {
  return [](const EngineProblem& p) { return solve_engine(p, EngineOptions{}); };
}

TEST_CASE("lagrangian_dual: lagrange.h's example") {
  const EngineProblem ep = build_engine_problem(testing::memory_chain(11));
  const DualResult d = lagrangian_dual(ep, exact(), Clock::time_point::max());
  REQUIRE(d.multiplier.size() == 1);
  CHECK(d.multiplier[0] == doctest::Approx(7.0 / 18.0));
  CHECK(d.lower_bound_us == doctest::Approx(5.5));  // 2 + 20μ - 11μ
  CHECK(d.found);
  CHECK(d.cost_us == 9);  // a = c = 1: 4 + 3 + 2, 2 bytes
  CHECK(multiplier_offset(ep.memory, d.multiplier) == doctest::Approx(11 * 7.0 / 18.0));
  CHECK(labelling_cost(ep, {0, 0, 1}) == 0 + 2 + 3 + 0 + 1);
}

TEST_CASE("lagrangian_dual: bounds never exceed the constrained optimum") {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    RandomProblemSpec spec;
    spec.shape = static_cast<Shape>(seed % 4);
    spec.nodes = 7;
    spec.memory_rows = 1 + static_cast<std::int32_t>(seed % 2);
    spec.seed = 40 + seed;
    const Problem p = random_problem(spec);
    const testing::BruteForceResult truth = testing::brute_force(p);
    const DualResult d =
        lagrangian_dual(build_engine_problem(p), exact(), Clock::time_point::max());
    if (!truth.feasible) continue;
    CHECK(d.lower_bound_us <= truth.objective_us + 1e-9);
    if (d.found) CHECK(d.cost_us >= truth.objective_us);
  }
}

}  // namespace
}  // namespace dtplan::solve::detail
