// The elimination engine: elimination.h's worked example, decoding, the backward pass against
// exhaustive min-marginals, and frontier elimination against exhaustive search.

#include "solve/engine/elimination.h"

#include <doctest/doctest.h>

#include <chrono>
#include <memory>

#include "solve/engine/model.h"
#include "solve/engine/search.h"
#include "solve/evaluate.h"
#include "solve/generate.h"
#include "support/brute_force.h"

namespace dtplan::solve::detail {
namespace {

Factor scalar(std::vector<std::int32_t> scope, std::vector<std::int32_t> dims,
              std::vector<double> cost) {
  auto t = std::make_shared<Table>();
  t->dims = std::move(dims);
  t->entries = static_cast<std::int64_t>(cost.size());
  t->cost = std::move(cost);
  return {std::move(t), std::move(scope)};
}

// A random problem of `nodes` nodes, its shape cycling with the seed.
Problem random_of(std::uint64_t seed, std::int32_t nodes) {
  RandomProblemSpec spec;
  spec.shape = static_cast<Shape>(seed % 4);
  spec.nodes = nodes;
  spec.seed = seed;
  return random_problem(spec);
}

TEST_CASE("elimination: the worked example of elimination.h") {
  const std::vector<Factor> factors = {
      scalar({0}, {2}, {1, 2}), scalar({0, 1}, {2, 2}, {0, 5, 5, 0}), scalar({1}, {2}, {3, 0})};
  const Elimination e = Elimination::run({2, 2}, factors, {0, 1}, MemoryModel{}, Limits{});
  REQUIRE(e.status() == RunStatus::kComplete);
  // Bucket 0 = {f, g}: m(y) = {min(1+0, 2+5), min(1+5, 2+0)} = {1, 2}.
  CHECK(e.factors()[3].table->cost == std::vector<double>{1, 2});
  REQUIRE(e.remaining().size() == 1);
  std::vector<std::int64_t> targets;
  const RootChoice root = choose_root(e.factors(), e.remaining(), MemoryModel{}, targets);
  CHECK(root.cost_us == 2);  // min(3 + 1, 0 + 2)
  std::vector<std::int32_t> y(2, -1);
  REQUIRE(e.decode(y, targets).ok());
  CHECK(y == std::vector<std::int32_t>{1, 1});
  CHECK(e.relaxation_bound() == 2);
  // Backward pass: outside(f)(x) = min_y g(x, y) + h(y) = {min(0+3, 5+0), min(5+3, 0+0)}.
  const Outside out = e.outside_tables({}).value();
  CHECK(out[0] == std::vector<double>{3, 0});
  CHECK(out[2] == std::vector<double>{1, 2});  // outside(h)(y) = m(y)
  // A passed deadline stops the pass: no tables.
  CHECK_FALSE(e.outside_tables({}, Clock::now() - std::chrono::seconds(1)).has_value());
}

TEST_CASE("elimination: outside tables are exact min-marginals (random problems)") {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const Problem p = random_of(300 + seed, 7);
    const EngineProblem ep = build_engine_problem(p);
    const Elimination e =
        Elimination::run(ep.domains, ep.factors, leaf_plan(ep).order, ep.memory, Limits{});
    REQUIRE(e.status() == RunStatus::kComplete);
    Outside init(e.factors().size());
    for (std::int32_t c : e.remaining()) {
      double others = 0;
      for (std::int32_t d : e.remaining()) others += d == c ? 0 : e.factors()[d].table->cost[0];
      init[c] = {others};
    }
    const Outside out = e.outside_tables(init).value();
    // min over labellings with y_v = l of the total == unary(l) + outside(unary)(l).
    std::vector<std::vector<double>> best(p.nodes.size());
    for (std::size_t v = 0; v < p.nodes.size(); ++v)
      best[v].assign(p.nodes[v].cost_us.size(), kForbidden);
    std::vector<LabelIndex> y(p.nodes.size(), 0);
    for (bool more = true; more;) {
      const double total = objective_us(p, y);
      for (std::size_t v = 0; v < y.size(); ++v) best[v][y[v]] = std::min(best[v][y[v]], total);
      more = false;
      for (std::size_t k = y.size(); k-- > 0;) {
        if (++y[k] < p.labels(static_cast<NodeIndex>(k))) {
          more = true;
          break;
        }
        y[k] = 0;
      }
    }
    for (std::size_t v = 0; v < p.nodes.size(); ++v) {
      for (std::size_t l = 0; l < best[v].size(); ++l) {
        CHECK(p.nodes[v].cost_us[l] + out[ep.unary[v]][l] == best[v][l]);
      }
    }
  }
}

TEST_CASE("elimination: Retain::kArgmins decodes the same labels and frees consumed messages") {
  int freed = 0;
  for (std::uint64_t seed = 1; seed <= 24; ++seed) {
    const Problem p = random_of(500 + seed, 9);
    const EngineProblem ep = build_engine_problem(p);
    const auto order = leaf_plan(ep).order;
    const Elimination kept = Elimination::run(ep.domains, ep.factors, order, ep.memory, Limits{});
    const Elimination lean = Elimination::run(ep.domains, ep.factors, order, ep.memory, Limits{}, 0,
                                              nullptr, Retain::kArgmins);
    REQUIRE(kept.status() == RunStatus::kComplete);
    REQUIRE(lean.status() == RunStatus::kComplete);
    std::vector<std::int64_t> t1, t2;
    const RootChoice r1 = choose_root(kept.factors(), kept.remaining(), ep.memory, t1);
    const RootChoice r2 = choose_root(lean.factors(), lean.remaining(), ep.memory, t2);
    CHECK(r1.cost_us == r2.cost_us);
    std::vector<std::int32_t> y1(ep.domains.size(), -1), y2(ep.domains.size(), -1);
    REQUIRE(kept.decode(y1, t1).ok());
    REQUIRE(lean.decode(y2, t2).ok());
    CHECK(y1 == y2);
    for (std::size_t id = ep.factors.size(); id < lean.factors().size(); ++id) {
      freed += lean.factors()[id].table == nullptr ? 1 : 0;
      CHECK(kept.factors()[id].table != nullptr);
    }
  }
  CHECK(freed > 0);
}

TEST_CASE("elimination: memory frontiers find the constrained optimum (random problems)") {
  int compared = 0;
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    RandomProblemSpec spec;
    spec.shape = static_cast<Shape>(seed % 4);
    spec.nodes = 7;
    spec.memory_rows = 1 + static_cast<std::int32_t>(seed % 2);
    spec.seed = 900 + seed;
    const Problem p = random_problem(spec);
    const EngineProblem ep = build_engine_problem(p);
    const EngineSolution s = solve_engine(ep, EngineOptions{});
    const testing::BruteForceResult truth = testing::brute_force(p);
    REQUIRE(s.complete);
    CHECK(s.found == truth.feasible);
    if (!truth.feasible) continue;
    CHECK(s.value_us == truth.objective_us);
    CHECK(objective_us(p, s.assignment) == truth.objective_us);
    CHECK(evaluate(p, s.assignment)->feasible());
    ++compared;
  }
  CHECK(compared >= 8);
}

TEST_CASE("elimination: a deadline in the past stops the run with a valid bound") {
  const Problem p = random_problem({.nodes = 6, .seed = 5});
  const EngineProblem ep = build_engine_problem(p);
  Limits late;
  late.deadline = Clock::now() - std::chrono::seconds(1);
  const Elimination e =
      Elimination::run(ep.domains, ep.factors, leaf_plan(ep).order, ep.memory, late);
  CHECK(e.status() == RunStatus::kTimeLimit);
  CHECK(e.relaxation_bound() == trivial_lower_bound_us(p));  // nothing eliminated yet
}

}  // namespace
}  // namespace dtplan::solve::detail
