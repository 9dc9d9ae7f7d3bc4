// The CBC backend (AutoParallel's edge-variable ILP): agrees with the exact solver and exhaustive
// search on small random problems with every kind of constraint, prints nothing, and reports
// infeasibility.

#include "solve/ilp_solver.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>

#include "solve/evaluate.h"
#include "solve/generate.h"
#include "support/brute_force.h"
#include "support/solve_examples.h"

namespace dtplan::solve {
namespace {

// Runs fn with stdout and stderr redirected to a temporary file; returns what was written.
template <class Fn>
std::string captured_output(Fn fn) {
  std::FILE* tmp = std::tmpfile();
  REQUIRE(tmp != nullptr);
  std::cout.flush();  // what the test runner wrote so far (doctest -s) is not the solver's
  std::cerr.flush();
  std::fflush(stdout);
  std::fflush(stderr);
  const int out = dup(1), err = dup(2);
  dup2(fileno(tmp), 1);
  dup2(fileno(tmp), 2);
  fn();
  std::fflush(stdout);
  std::fflush(stderr);
  dup2(out, 1);
  dup2(err, 2);
  close(out);
  close(err);
  std::string text;
  std::rewind(tmp);
  for (int c = std::fgetc(tmp); c != EOF; c = std::fgetc(tmp)) text.push_back(static_cast<char>(c));
  std::fclose(tmp);
  return text;
}

TEST_CASE("ilp: CBC == exact == brute force on small random problems, silently") {
  if (!ilp_available()) {
    CHECK(make_ilp_solver().error().kind == core::ErrorKind::kBackendMissing);
    return;
  }
  const auto ilp = make_ilp_solver().value();
  const auto exact = make_exact_solver();
  CHECK(ilp->name() == "ilp");
  int compared = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    RandomProblemSpec spec;
    spec.shape = static_cast<Shape>(seed % 4);
    spec.nodes = 6;
    spec.max_labels = 3;
    spec.forbidden_fraction = 0.1;
    spec.followers = seed % 3 == 0 ? 1 : 0;
    spec.pins = seed % 4 == 1 ? 1 : 0;
    spec.memory_rows = seed % 2 == 0 ? 1 : 0;
    spec.seed = 500 + seed;
    Problem p = random_problem(spec);
    if (seed == 5) p.edges.push_back({0, 1, 7, p.edges[0].cost_us});  // one producer, two slots
    const testing::BruteForceResult truth = testing::brute_force(p);
    core::Result<Solution> s = core::Error::internal("not run");
    const std::string printed = captured_output([&] { s = ilp->solve(p, {}); });
    CHECK_MESSAGE(printed.empty(), printed);
    INFO("seed " << seed);
    if (!truth.feasible) {
      REQUIRE_FALSE(s.ok());
      CHECK(s.error().kind == core::ErrorKind::kUnsupported);
      continue;
    }
    REQUIRE_MESSAGE(s.ok(), (s.ok() ? std::string() : s.error().message));
    CHECK(s->objective_us == truth.objective_us);
    CHECK(s->optimal);
    CHECK(s->lower_bound_us == s->objective_us);
    CHECK(s->stats.ilp_variables > 0);
    CHECK(evaluate(p, s->labels)->feasible());
    CHECK(exact->solve(p, {})->objective_us == s->objective_us);
    ++compared;
  }
  CHECK(compared >= 8);
}

TEST_CASE("ilp: the formulation's size on problem.h's example") {
  if (!ilp_available()) return;
  auto s = make_ilp_solver().value()->solve(testing::two_nodes(), {});
  REQUIRE(s.ok());
  // a has no input: 2 variables; b's argument: 2 x 2; rows: 2 uniqueness + 2 flow.
  CHECK(s->stats.ilp_variables == 6);
  CHECK(s->stats.ilp_rows == 4);
  CHECK(s->objective_us == 2);
  CHECK(s->labels == std::vector<LabelIndex>{1, 1});
}

TEST_CASE("ilp: the time limit is wall time, building and CBC's presolve included") {
  if (!ilp_available()) return;
  const auto ilp = make_ilp_solver().value();
  // A passed limit stops the build before CBC starts.
  auto none = ilp->solve(testing::two_nodes(), {.time_limit_s = 0});
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().kind == core::ErrorKind::kUnsupported);
  CHECK(none.error().message ==
        "ilp: the time limit of 0.000 s passed while building the ILP, before a feasible "
        "labelling was found");
  // 32 layers of 300 nodes: CBC's presolve of the root LP alone runs far longer than 1 s and
  // checks no clock; the solve still ends at the limit (the margin covers a loaded machine).
  const Problem big = layered_problem({});
  const auto start = std::chrono::steady_clock::now();
  auto s = ilp->solve(big, {.time_limit_s = 1});
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(waited < 8);
  if (s.ok()) {
    CHECK_FALSE(s->optimal);
    CHECK(s->stats.stop_reason == StopReason::kTimeLimit);
  } else {
    CHECK(s.error().kind == core::ErrorKind::kUnsupported);
    CHECK(s.error().message.find("the time limit of 1.000 s passed") != std::string::npos);
  }
}

}  // namespace
}  // namespace dtplan::solve
