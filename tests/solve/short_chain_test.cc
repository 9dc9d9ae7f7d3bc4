// The short chain of a long stack of repeated blocks: which nodes and edges it keeps, how its
// labels lengthen, and that the exact solver using it as an incumbent still finds the optimum.

#include "solve/short_chain.h"

#include <doctest/doctest.h>

#include <random>
#include <string>

#include "solve/evaluate.h"
#include "solve/generate.h"
#include "solve/solver.h"

namespace dtplan::solve::detail {
namespace {

// p -> a_0; a_b -> c_b; c_b -> a_(b+1); h -> a_b, for blocks b = 0 .. blocks - 1. Labels: 2
// everywhere; every matrix charges 1 per label change, p prefers label 1 (unary (3, 0)).
Problem hub_chain(std::int32_t blocks) {
  Problem p;
  p.nodes = {{"p", {3, 0}}, {"h", {0, 0}}};
  const std::vector<double> change = {0, 1, 1, 0};
  RepeatGroup g;
  for (std::int32_t b = 0; b < blocks; ++b) {
    const auto a = static_cast<NodeIndex>(p.nodes.size());
    const std::string index = std::to_string(b);
    p.nodes.push_back({std::string("a").append(index), {0, 0}});
    p.nodes.push_back({std::string("c").append(index), {1, 0}});
    g.blocks.push_back({a, a + 1});
    p.edges.push_back({a, a + 1, 0, change});
    p.edges.push_back({1, a, 1, change});
    if (b > 0) p.edges.push_back({a - 1, a, 0, change});
  }
  p.edges.push_back({0, 2, 2, change});
  p.repeats.push_back(std::move(g));
  return p;
}

TEST_CASE("short chain: blocks 0, 1 and n-1, the last link re-attached to block 1") {
  const Problem p = hub_chain(5);
  REQUIRE(validate(p).ok());
  const auto chain = short_chain(p);
  REQUIRE(chain.has_value());
  // Kept, in order: p, h, a0, c0, a1, c1, a4, c4.
  const Problem& s = chain->problem;
  REQUIRE(s.nodes.size() == 8);
  CHECK(s.nodes[6].name == "a4");
  // Edges: block 0 (a0->c0, h->a0), block 1 (a1->c1, h->a1, c0->a1), c3->a4 as c1->a4, block 4
  // (a4->c4, h->a4), p->a0: 9 (the links c1->a2, c2->a3 and blocks 2, 3 go).
  CHECK(s.edges.size() == 9);
  bool spliced = false;
  for (const Edge& e : s.edges) spliced = spliced || (e.from == 5 && e.to == 6);
  CHECK(spliced);
  REQUIRE(s.repeats.size() == 1);
  CHECK(s.repeats[0].blocks == std::vector<std::vector<NodeIndex>>{{2, 3}, {4, 5}, {6, 7}});
  // Middle blocks copy block 1: a2, a3 -> a1 (4), c2, c3 -> c1 (5).
  CHECK(chain->source == std::vector<NodeIndex>{0, 1, 2, 3, 4, 5, 4, 5, 4, 5, 6, 7});
  const std::vector<LabelIndex> y = lengthen(*chain, {1, 0, 1, 1, 0, 1, 0, 1});
  CHECK(y == std::vector<LabelIndex>{1, 0, 1, 1, 0, 1, 0, 1, 0, 1, 0, 1});
}

TEST_CASE("short chain: none for short stacks, links that skip a block, pins") {
  CHECK_FALSE(short_chain(hub_chain(3)).has_value());
  CHECK(short_chain(hub_chain(4)).has_value());
  Problem skip = hub_chain(6);
  skip.edges.push_back({3, 6, 2, {0, 1, 1, 0}});  // c0 -> a2
  REQUIRE(validate(skip).ok());
  CHECK_FALSE(short_chain(skip).has_value());
  Problem pinned = hub_chain(6);
  pinned.pins.push_back({0, {0}});
  CHECK_FALSE(short_chain(pinned).has_value());
  Problem none = hub_chain(6);
  none.repeats.clear();
  CHECK_FALSE(short_chain(none).has_value());
}

TEST_CASE("short chain: a layered stack shortens to the same model with three layers") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    CAPTURE(seed);
    LayeredProblemSpec spec{.layers = 7, .nodes_per_layer = 30, .seed = seed};
    const auto chain = short_chain(layered_problem(spec));
    REQUIRE(chain.has_value());
    spec.layers = 3;
    const Problem three = layered_problem(spec);
    // Equal but for the last block's names (layer 6 here, layer 2 there).
    Problem renamed = chain->problem;
    REQUIRE(renamed.nodes.size() == three.nodes.size());
    for (std::size_t v = 0; v < three.nodes.size(); ++v) {
      renamed.nodes[v].name = three.nodes[v].name;
    }
    CHECK(renamed == three);
    CHECK(chain->problem.nodes[three.repeats[0].blocks[2][0]].name.rfind("L6.", 0) == 0);
  }
}

TEST_CASE("short chain: memory rows fold, so a short labelling meets them as its lengthening") {
  std::mt19937_64 rng(5);
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    CAPTURE(seed);
    const Problem p =
        layered_problem({.layers = 6, .nodes_per_layer = 20, .memory_row = true, .seed = seed});
    const auto chain = short_chain(p);
    REQUIRE(chain.has_value());
    REQUIRE(chain->problem.memory.size() == 1);
    const MemoryRow& row = chain->problem.memory[0];
    CHECK(row.high_bytes == p.memory[0].high_bytes);
    auto bytes = [](const MemoryRow& r, const std::vector<LabelIndex>& y) {
      std::int64_t sum = 0;
      for (const MemoryTerm& t : r.terms) sum += t.bytes[static_cast<std::size_t>(y[t.node])];
      return sum;
    };
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<LabelIndex> y;
      for (const Node& n : chain->problem.nodes) {
        y.push_back(static_cast<LabelIndex>(rng() % n.cost_us.size()));
      }
      CHECK(bytes(row, y) == bytes(p.memory[0], lengthen(*chain, y)));
    }
  }
}

TEST_CASE("short chain: the exact solver with it as incumbent still finds the optimum") {
  // Seeds 4-5 with a tight memory row: the short chain's optimum breaks it and is repaired.
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    CAPTURE(seed);
    const Problem p = layered_problem({.layers = 5,
                                       .nodes_per_layer = 30,
                                       .label_scale = 1.5,
                                       .memory_row = seed > 3,
                                       .memory_budget = 0.2,
                                       .integer_costs = true,
                                       .seed = seed});
    REQUIRE(short_chain(p).has_value());
    SolveOptions off;
    off.bound_fixing = BoundFixing::kOff;
    SolveOptions on;
    on.bound_fixing = BoundFixing::kOn;
    const auto plain = make_exact_solver()->solve(p, off);
    const auto fixed = make_exact_solver()->solve(p, on);
    REQUIRE(plain.ok());
    REQUIRE(fixed.ok());
    CHECK(plain->optimal);
    CHECK(fixed->optimal);
    CHECK(fixed->objective_us == plain->objective_us);
  }
}

}  // namespace
}  // namespace dtplan::solve::detail
