// simplify() and lift(): each reduction on a worked example, repeat blocks kept alike, infeasible
// problems reported, and on random problems: solving the reduced problem and lifting gives the
// optimum of the original.

#include "solve/simplify.h"

#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <string>

#include "solve/evaluate.h"
#include "solve/generate.h"
#include "solve/solver.h"
#include "support/brute_force.h"

namespace dtplan::solve {
namespace {

Simplified simplified(const Problem& p) {
  auto s = simplify(p);
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? std::string() : s.error().message));
  REQUIRE(validate(s->problem).ok());
  return std::move(s).value();
}

TEST_CASE("simplify: a series node becomes an edge, and lift recovers it") {
  Problem p;
  p.nodes = {{"a", {0, 1}}, {"b", {5, 1}}, {"c", {0, 2}}};
  p.edges = {{0, 1, 0, {0, 3, 3, 0}}, {1, 2, 0, {0, 4, 4, 0}}};
  p.memory = {{"params", {{0, {9, 1}}, {2, {9, 1}}}, 0, 10}};
  const Simplified s = simplified(p);
  REQUIRE(s.problem.nodes.size() == 2);
  REQUIRE(s.problem.edges.size() == 1);
  // M[y][z] = min_x A[y][x] + U_b[x] + B[x][z]:
  // (0,0) = min(0+5+0, 3+1+4) = 5; (0,1) = min(0+5+4, 3+1+0) = 4;
  // (1,0) = min(3+5+0, 0+1+4) = 5; (1,1) = min(3+5+4, 0+1+0) = 1.
  CHECK(s.problem.edges[0].cost_us == std::vector<double>{5, 4, 5, 1});
  CHECK(s.stats.nodes_folded == 1);
  auto lifted = lift(s.remap, std::vector<LabelIndex>{0, 1});
  REQUIRE(lifted.ok());
  CHECK(*lifted == std::vector<LabelIndex>{0, 1, 1});  // (0,1) was reached through b = 1
  CHECK(objective_us(p, *lifted) == 0 + 4 + 2);        // = U_a + M[0][1] + U_c
}

TEST_CASE("simplify: followers merge into their leader") {
  Problem p;
  p.nodes = {{"x", {5, 1}}, {"v", {0, 10}}, {"w", {2, 2, 1}}};
  p.followers = {{1, 0, {1, 0}}};             // v = 1 when x = 0, v = 0 when x = 1
  p.edges = {{1, 2, 0, {0, 7, 7, 7, 0, 0}}};  // v -> w
  p.memory = {{"params", {{0, {4, 1}}, {2, {1, 2, 3}}}, 0, 6}};  // binds: x and w stay
  const Simplified s = simplified(p);
  CHECK(s.stats.followers_merged == 1);
  REQUIRE(s.problem.nodes.size() == 2);
  CHECK(s.problem.nodes[0].name == "x");
  // x absorbs v: x=0 pays v=1 (10), x=1 pays v=0 (0); the edge v -> w becomes x -> w.
  CHECK(s.problem.nodes[0].cost_us == std::vector<double>{15, 1});
  auto lifted = lift(s.remap, std::vector<LabelIndex>{1, 0});
  REQUIRE(lifted.ok());
  CHECK((*lifted)[1] == 0);
  CHECK((*lifted)[0] == s.remap.original_labels[0][1]);
}

TEST_CASE("simplify: arc consistency, dominance, duplicates and memory tightening") {
  Problem p;
  p.nodes = {{"a", {1, 1, 1, 0}}, {"b", {0, 0}}};
  // a=2 has no finite pair; a=1 duplicates a=0; a=3 is cheaper but forbidden by bytes.
  p.edges = {{0, 1, 0, {0, 1, 0, 1, kForbidden, kForbidden, 3, 3}}};
  p.memory = {{"params", {{0, {1, 1, 1, 50}}, {1, {0, 40}}}, 0, 45}};
  const Simplified s = simplified(p);
  CHECK(s.stats.labels_inconsistent >= 1);
  CHECK(s.stats.labels_memory >= 1);
  CHECK(s.stats.labels_dominated >= 1);
  // a keeps label 0 only (label 1 is its duplicate, 2 inconsistent, 3 over budget).
  CHECK(s.remap.original_labels[0] == std::vector<LabelIndex>{0});

  Problem slack = p;
  slack.memory[0].high_bytes = 1000;  // can never bind: dropped
  CHECK(simplified(slack).problem.memory.empty());
  CHECK(simplified(slack).stats.memory_rows_dropped == 1);
}

TEST_CASE("simplify reports infeasible problems") {
  Problem p;
  p.nodes = {{"a", {1, 2}}, {"b", {0, 0}}};
  p.edges = {{0, 1, 0, {kForbidden, kForbidden, kForbidden, kForbidden}}};
  auto s = simplify(p);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().kind == core::ErrorKind::kUnsupported);
  CHECK(s.error().message.find("infeasible: node 'a' has no label left") == 0);

  Problem m;
  m.nodes = {{"a", {1, 2}}, {"b", {0, 0}}};
  m.memory = {{"params", {{0, {8, 6}}, {1, {3, 4}}}, 0, 8}};
  s = simplify(m);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message ==
        "infeasible: memory budget 8 below minimum 9 (memory row 'params', bytes)");
  m.memory = {{"params", {{0, {8, 6}}, {1, {3, 4}}}, 13, 20}};
  s = simplify(m);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message ==
        "infeasible: memory floor 13 above maximum 12 (memory row 'params', bytes)");

  Problem pinned;
  pinned.nodes = {{"a", {1, 2}}};
  pinned.pins = {{0, {0}}, {0, {1}}};
  CHECK(simplify(pinned).error().message.find("infeasible: node 'a'") == 0);
}

TEST_CASE("simplify keeps repeat blocks alike: a pin in one block becomes a forbidden cost") {
  Problem p;
  for (int b = 0; b < 3; ++b) {
    for (int k = 0; k < 2; ++k) {
      std::string name = "n";
      name += std::to_string(b * 10 + k);
      p.nodes.push_back({name, {1, 2, 3}});
    }
  }
  for (int b = 0; b < 3; ++b) p.edges.push_back({2 * b, 2 * b + 1, 0, {0, 1, 1, 1, 0, 1, 1, 1, 0}});
  for (int b = 0; b + 1 < 3; ++b)
    p.edges.push_back({2 * b + 1, 2 * b + 2, 0, {0, 1, 1, 1, 0, 1, 1, 1, 0}});
  p.repeats = {{{{0, 1}, {2, 3}, {4, 5}}}};
  p.pins = {{3, {1, 2}}};  // only block 1's second node
  const Simplified s = simplified(p);
  REQUIRE(s.problem.repeats.size() == 1);
  const auto& blocks = s.problem.repeats[0].blocks;
  for (const auto& block : blocks) {
    for (std::size_t k = 0; k < block.size(); ++k) {
      CHECK(s.problem.labels(block[k]) == s.problem.labels(blocks[0][k]));
    }
  }
  CHECK(s.problem.nodes[blocks[1][1]].cost_us[0] == kForbidden);
  CHECK(s.problem.nodes[blocks[0][1]].cost_us[0] != kForbidden);
}

TEST_CASE("simplify + lift preserves the optimal cost on random problems") {
  int checked = 0;
  for (Shape shape : {Shape::kChain, Shape::kTree, Shape::kSkipChain, Shape::kGrid}) {
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      RandomProblemSpec spec;
      spec.shape = shape;
      spec.nodes = shape == Shape::kGrid ? 9 : 7;
      spec.max_labels = shape == Shape::kGrid ? 3 : 4;
      spec.forbidden_fraction = 0.1;
      spec.followers = seed % 2 == 0 ? 2 : 0;
      spec.pins = seed % 3 == 0 ? 2 : 0;
      spec.memory_rows = seed % 4 == 1 ? 1 : 0;
      spec.seed = 1000 + seed * 31 + static_cast<std::uint64_t>(shape);
      const Problem p = random_problem(spec);
      const testing::BruteForceResult truth = testing::brute_force(p);
      // Fully reduced, and stopped by a passed deadline (pins and followers folded in only).
      for (const bool late : {false, true}) {
        CAPTURE(late);
        auto s = late ? simplify(p, std::chrono::steady_clock::now() - std::chrono::seconds(1))
                      : simplify(p);
        if (!truth.feasible) {
          // Infeasibility may surface in simplify or in the solve of the reduced problem.
          if (s.ok()) CHECK_FALSE(make_exact_solver()->solve(s->problem, {}).ok());
          continue;
        }
        REQUIRE_MESSAGE(s.ok(), (s.ok() ? std::string() : s.error().message));
        CHECK(s->problem.pins.empty());
        CHECK(s->problem.followers.empty());
        SolveOptions raw;
        raw.simplify = SimplifyMode::kOff;
        auto reduced = make_exact_solver()->solve(s->problem, raw);
        REQUIRE_MESSAGE(reduced.ok(), (reduced.ok() ? std::string() : reduced.error().message));
        auto lifted = lift(s->remap, reduced->labels);
        REQUIRE(lifted.ok());
        auto ev = evaluate(p, *lifted);
        REQUIRE(ev.ok());
        CHECK(ev->feasible());
        CHECK(ev->total_us == truth.objective_us);
        CHECK(s->problem.nodes.size() <= p.nodes.size());
        if (!late) ++checked;
      }
    }
  }
  CHECK(checked >= 30);
}

TEST_CASE("lift rejects labellings that do not fit") {
  Problem p;
  p.nodes = {{"a", {0, 1}}, {"b", {0, 1}}};
  p.memory = {{"m", {{0, {1, 2}}, {1, {1, 2}}}, 0, 3}};
  const Simplified s = simplified(p);
  CHECK_FALSE(lift(s.remap, std::vector<LabelIndex>{}).ok());
  CHECK_FALSE(lift(s.remap, std::vector<LabelIndex>(s.problem.nodes.size(), 7)).ok());
}

TEST_CASE("simplify: shared edge matrices give the same result as private copies") {
  // Layers of a layered problem priced alike: share every matrix with its equal values (as a
  // model's export does), then simplify both; restrict() and dominance then reuse their results
  // between layers, which must change nothing.
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    CAPTURE(seed);
    const Problem p = layered_problem({.layers = 6,
                                       .nodes_per_layer = 40,
                                       .memory_row = seed == 2,
                                       .integer_costs = true,
                                       .seed = seed});
    Problem shared = p;
    std::map<std::vector<double>, Matrix> distinct;
    for (Edge& e : shared.edges) {
      const auto [it, added] = distinct.emplace(e.cost_us.values(), e.cost_us);
      e.cost_us = it->second;
    }
    REQUIRE(distinct.size() < p.edges.size());
    auto a = simplify(p);
    auto b = simplify(shared);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(a->problem == b->problem);
    CHECK(a->remap == b->remap);
    CHECK(a->stats.labels_dominated == b->stats.labels_dominated);
  }
}

}  // namespace
}  // namespace dtplan::solve
