// The Solver interface: the factory, the greedy baseline's contract (feasible labellings, a valid
// bound, never better than the optimum) and option checks.

#include "solve/solver.h"

#include <doctest/doctest.h>

#include "solve/evaluate.h"
#include "solve/generate.h"
#include "solve/ilp_solver.h"
#include "support/solve_examples.h"

namespace dtplan::solve {
namespace {

TEST_CASE("parse_solver_kind names every solver and suggests near misses") {
  CHECK(solver_names() == std::vector<std::string>{"exact", "greedy", "ilp"});
  for (const std::string& n : solver_names()) {
    INFO(n);
    const SolverKind kind = parse_solver_kind(n).value();
    CHECK(name(kind) == n);
    CHECK(make_solver(kind).ok() == check_solver_available(kind).ok());
    if (make_solver(kind).ok()) CHECK(make_solver(kind).value()->name() == n);
  }
  CHECK(check_solver_available(SolverKind::kExact).ok());
  CHECK(check_solver_available(SolverKind::kIlp).ok() == ilp_available());
  auto bad = parse_solver_kind("exakt");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().kind == core::ErrorKind::kBadInput);
  CHECK(bad.error().message ==
        "solver 'exakt' is not one of exact, greedy, ilp (did you mean 'exact'?)");
}

TEST_CASE("stop reasons: the spelling plans record, and back") {
  const std::vector<std::pair<StopReason, std::string>> spelled{
      {StopReason::kNone, ""},
      {StopReason::kGap, "gap"},
      {StopReason::kTimeLimit, "time_limit"},
      {StopReason::kPointLimit, "point_limit"}};
  for (const auto& [reason, text] : spelled) {
    INFO(text);
    CHECK(name(reason) == text);
    CHECK(parse_stop_reason(text).value() == reason);
  }
  auto bad = parse_stop_reason("timelimit");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().kind == core::ErrorKind::kBadInput);
}

TEST_CASE("greedy: in order, cheapest given earlier choices; never below the optimum") {
  // a = {1, 2}, b = {3, 0}, edge free when equal. Greedy takes a = 0 (cost 1), then b: b=0 costs
  // 3 + 0, b=1 costs 0 + 5 -> b = 0; total 4, while the optimum is 2 (a = b = 1).
  const Problem p = testing::two_nodes();
  auto g = make_greedy_solver()->solve(p, {});
  REQUIRE(g.ok());
  CHECK(g->labels == std::vector<LabelIndex>{0, 0});
  CHECK(g->objective_us == 4);
  CHECK(g->lower_bound_us == 1);  // Σ minima: 1 + 0 + 0
  CHECK_FALSE(g->optimal);

  int feasible = 0;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    RandomProblemSpec spec;
    spec.shape = static_cast<Shape>(seed % 4);
    spec.nodes = 8;
    spec.followers = seed % 3 == 0 ? 2 : 0;
    spec.pins = seed % 2;
    spec.memory_rows = seed % 4 == 0 ? 1 : 0;
    spec.seed = 77 + seed;
    const Problem q = random_problem(spec);
    auto greedy = make_greedy_solver()->solve(q, {});
    auto exact = make_exact_solver()->solve(q, {});
    if (!greedy.ok()) {
      CHECK(greedy.error().kind == core::ErrorKind::kUnsupported);
      continue;
    }
    ++feasible;
    REQUIRE(
        exact.ok());  // whatever greedy finds exists, so the exact solver finds at least as good
    CHECK(evaluate(q, greedy->labels)->feasible());
    CHECK(greedy->objective_us >= exact->objective_us);
    CHECK(greedy->lower_bound_us <= exact->objective_us);
  }
  CHECK(feasible >= 15);
}

TEST_CASE("solve options are checked") {
  Problem p;
  p.nodes = {{"a", {1}}};
  SolveOptions o;
  o.threads = 0;
  CHECK(make_exact_solver()->solve(p, o).error().kind == core::ErrorKind::kBadInput);
  o = {};
  o.time_limit_s = -1;
  CHECK_FALSE(make_exact_solver()->solve(p, o).ok());
  CHECK(make_exact_solver()->solve(Problem{}, {})->labels.empty());
}

}  // namespace
}  // namespace dtplan::solve
