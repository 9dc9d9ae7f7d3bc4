// The short chain of a long stack of repeated blocks: which nodes and edges it keeps, how its
// labels lengthen, and that the exact solver using it as an incumbent still finds the optimum.

#include "solve/stack/short_chain.h"

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <random>
#include <string>

#include "solve/evaluate.h"
#include "solve/generate.h"
#include "solve/solver.h"
#include "support/solve_examples.h"

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

TEST_CASE("short chain: each long edge end takes its messages from the edge it stands for") {
  // Long edges: per block b, a_b->c_b, h->a_b, then c_(b-1)->a_b (b > 0); last p->a0. Short
  // edges (see above): 0 a0->c0, 1 h->a0, 2 a1->c1, 3 h->a1, 4 c0->a1, 5 a4->c4, 6 h->a4,
  // 7 c1->a4 (for c3->a4), 8 p->a0. Blocks 2, 3 take block 1's (2, 3); their link from the
  // block before is block 1's link to block 4 (7) at the earlier end and block 1's link from
  // block 0 (4) at the later end.
  const auto chain = short_chain(hub_chain(5));
  REQUIRE(chain.has_value());
  using Ends = std::array<std::int32_t, 2>;
  const std::vector<Ends> expected = {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4},
                                      {2, 2}, {3, 3}, {7, 4}, {2, 2}, {3, 3},
                                      {7, 4}, {5, 5}, {6, 6}, {7, 7}, {8, 8}};
  CHECK(chain->edge_source == expected);
  EdgeMessages shorts(chain->problem.edges.size());
  for (std::size_t e = 0; e < shorts.size(); ++e) {
    shorts[e] = {std::vector<double>{double(e), 0.5}, std::vector<double>{-double(e), 1.5}};
  }
  const EdgeMessages longs = lengthen_messages(*chain, shorts);
  REQUIRE(longs.size() == expected.size());
  CHECK(longs[7][0] == std::vector<double>{7, 0.5});
  CHECK(longs[7][1] == std::vector<double>{-4, 1.5});
}

TEST_CASE("short chain: its LP messages lengthened start the long chain's LP near its end") {
  // Every end's source edge has the same matrix, slot and (at that end) the node it copies; the
  // long LP started from the short LP's messages is sound and needs fewer passes than from 0.
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    CAPTURE(seed);
    const Problem p = layered_problem({.layers = 24, .nodes_per_layer = 30, .seed = seed});
    const auto chain = short_chain(p);
    REQUIRE(chain.has_value());
    REQUIRE(chain->edge_source.size() == p.edges.size());
    for (std::size_t e = 0; e < p.edges.size(); ++e) {
      for (std::size_t end = 0; end < 2; ++end) {
        const std::int32_t s = chain->edge_source[e][end];
        REQUIRE(s >= 0);
        const Edge& se = chain->problem.edges[static_cast<std::size_t>(s)];
        const NodeIndex v = end == 0 ? p.edges[e].from : p.edges[e].to;
        CHECK((end == 0 ? se.from : se.to) == chain->source[static_cast<std::size_t>(v)]);
        CHECK(se.slot == p.edges[e].slot);
        CHECK(se.cost_us == p.edges[e].cost_us);
      }
    }
    const auto none = Clock::time_point::max();
    const DualBound small = dual_bound(chain->problem, {.max_passes = 300, .deadline = none});
    const EdgeMessages warm = lengthen_messages(*chain, small.messages);
    const DualBound cold = dual_bound(p, {.max_passes = 300, .deadline = none});
    const DualBound started = dual_bound(p, {.max_passes = 300, .deadline = none, .warm = &warm});
    SolveOptions exact;
    exact.bound_fixing = BoundFixing::kOff;
    const auto best = make_exact_solver()->solve(p, exact);
    REQUIRE(best.ok());
    REQUIRE(best->optimal);
    const double slack = 1e-9 * (std::fabs(best->objective_us) + 1);
    CHECK(started.lower_bound_us <= best->objective_us + slack);
    CHECK(started.lower_bound_us >= cold.lower_bound_us - 1e-6 * (cold.lower_bound_us + 1));
    MESSAGE("passes: cold " << cold.passes << ", warm " << started.passes);
    CHECK(started.passes < cold.passes);
  }
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

TEST_CASE("short chain: mixes take a run of middle blocks from the other labelling") {
  const Problem p = hub_chain(6);  // nodes p, h, then a_b, c_b: block b holds 2 + 2b, 3 + 2b
  const auto chain = short_chain(p);
  REQUIRE(chain.has_value());
  CHECK(chain->middle == 4);
  const std::vector<LabelIndex> zeros(chain->problem.nodes.size(), 0);
  const std::vector<LabelIndex> ones(chain->problem.nodes.size(), 1);
  CHECK(lengthen_mixed(*chain, zeros, ones, 0, true) == lengthen(*chain, zeros));
  // Front, 2 blocks: blocks 1 and 2 from `ones`; back, 1 block: block 4.
  CHECK(lengthen_mixed(*chain, zeros, ones, 2, true) ==
        std::vector<LabelIndex>{0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0});
  CHECK(lengthen_mixed(*chain, zeros, ones, 1, false) ==
        std::vector<LabelIndex>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0});
  CHECK(lengthen_mixed(*chain, zeros, ones, 4, false) ==
        lengthen_mixed(*chain, zeros, ones, 4, true));
}

TEST_CASE("short chain: mixes within the memory rows take the fewest lean blocks") {
  // The short optimum without the row (over) and with it (under): every mix meets the long row;
  // the mixes based on `over` take the fewest blocks from `under` (a linear scan agrees), those
  // based on `under` the most from `over`.
  int mixed = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    CAPTURE(seed);
    const Problem p = layered_problem({.layers = 9,
                                       .nodes_per_layer = 12,
                                       .memory_row = true,
                                       .memory_budget = 0.3,
                                       .integer_costs = true,
                                       .seed = seed});
    const auto chain = short_chain(p);
    REQUIRE(chain.has_value());
    const Solution over = testing::plain_optimum(chain->problem, false);
    const Solution under = testing::plain_optimum(chain->problem);
    if (meets_memory(p.memory, lengthen(*chain, over.labels))) continue;
    const auto mixes = mixes_within(*chain, p.memory, over.labels, under.labels);
    REQUIRE(mixes.size() == 4);
    ++mixed;
    for (const auto& m : mixes) CHECK(meets_memory(p.memory, m));
    for (const bool front : {true, false}) {
      std::int32_t fewest = 0;
      while (!meets_memory(p.memory,
                           lengthen_mixed(*chain, over.labels, under.labels, fewest, front))) {
        ++fewest;
      }
      std::int32_t most = chain->middle;
      while (
          !meets_memory(p.memory, lengthen_mixed(*chain, under.labels, over.labels, most, front))) {
        --most;
      }
      const std::size_t at = front ? 0 : 2;
      CHECK(mixes[at] == lengthen_mixed(*chain, over.labels, under.labels, fewest, front));
      CHECK(mixes[at + 1] == lengthen_mixed(*chain, under.labels, over.labels, most, front));
    }
  }
  CHECK(mixed >= 2);
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
