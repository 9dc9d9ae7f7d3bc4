// The block sweep of memory-bound incumbents: a block's problem (the edges leaving it as unaries,
// the fixed nodes' bytes off the row's bounds), the sweep's improvements by hand, the reuse of a
// block problem solved before, the early stop, and on layered stacks: never worse, always within
// the row, never below the optimum.

#include "solve/stack/block_sweep.h"

#include <doctest/doctest.h>

#include <chrono>

#include "solve/evaluate.h"
#include "solve/generate.h"
#include "solve/solver.h"
#include "support/brute_force.h"

namespace dtplan::solve::detail {
namespace {

const auto kNoDeadline = std::chrono::steady_clock::time_point::max();

// The exact solver as the block solve.
BlockSolve exact_blocks() {
  return [](const Problem& q) -> std::optional<std::vector<LabelIndex>> {
    auto r = make_exact_solver()->solve(q, {});
    if (!r.ok()) return std::nullopt;
    return r->labels;
  };
}

bool never(double) { return false; }

// `blocks` layers of one node each, no edges: label A costs 10 and holds 1 byte, B 3 and 4 bytes,
// C 5 and 2 bytes; one row of `high` bytes over all of them.
Problem three_plan_layers(int blocks, std::int64_t high) {
  Problem p;
  MemoryRow row{"memory", {}, 0, high};
  RepeatGroup group;
  for (int b = 0; b < blocks; ++b) {
    p.nodes.push_back({"layer" + std::to_string(b), {10, 3, 5}});
    row.terms.push_back({b, {1, 4, 2}});
    group.blocks.push_back({b});
  }
  p.memory.push_back(std::move(row));
  p.repeats.push_back(std::move(group));
  return p;
}

constexpr LabelIndex kA = 0, kB = 1, kC = 2;

TEST_CASE("block sweep: a block's problem fixes every other node") {
  // Chain x0 -> y0 -> x1 -> y1, blocks {x0, y0} and {x1, y1}; every node has 2 labels. Block 1
  // with x0 = 0, y0 = 1: x1's unary {1, 2} gains the edge y0 -> x1 at row 1, {3, 4}: {4, 6};
  // y1 keeps its unary; the edge x1 -> y1 stays (slot 0). The row (0..20 bytes; y0 holds 7 at
  // label 1, x0 none) keeps x1 and y1's terms: 0..13. A second row over x0 alone is constant.
  Problem p;
  p.nodes = {{"x0", {0, 1}}, {"y0", {0, 0}}, {"x1", {1, 2}}, {"y1", {5, 6}}};
  p.edges = {
      {0, 1, 0, Matrix{0, 1, 1, 0}}, {1, 2, 0, Matrix{1, 2, 3, 4}}, {2, 3, 0, Matrix{0, 9, 9, 0}}};
  p.memory = {{"m", {{1, {2, 7}}, {2, {1, 3}}, {3, {4, 4}}}, 0, 20},
              {"x0 only", {{0, {1, 2}}}, 0, 1}};
  p.repeats = {{{{0, 1}, {2, 3}}}};
  const Problem q = block_problem(p, {2, 3}, {0, 1, 0, 0});
  REQUIRE(q.nodes.size() == 2);
  CHECK(q.nodes[0].cost_us == std::vector<double>{4, 6});
  CHECK(q.nodes[1].cost_us == std::vector<double>{5, 6});
  REQUIRE(q.edges.size() == 1);
  CHECK(q.edges[0].from == 0);
  CHECK(q.edges[0].to == 1);
  CHECK(q.edges[0].slot == 0);
  CHECK(q.edges[0].cost_us == Matrix{0, 9, 9, 0});
  REQUIRE(q.memory.size() == 1);
  CHECK(q.memory[0].low_bytes == 0);
  CHECK(q.memory[0].high_bytes == 13);
  REQUIRE(q.memory[0].terms.size() == 2);
  CHECK(q.memory[0].terms[0].node == 0);
  CHECK(q.memory[0].terms[0].bytes == std::vector<std::int64_t>{1, 3});
  CHECK(q.repeats.empty());
  CHECK(validate(q).ok());
}

TEST_CASE("block sweep: spare bytes go to the block that can use them, by hand") {
  // Budget 7, incumbent B A A: 3 + 10 + 10 = 23 us, 6 bytes (1 spare). Block 0 (others 2 bytes,
  // room 5): B is best, no change. Block 1 (others 5 bytes, room 2): C, 5 instead of 10 ->
  // B C A, 18 us, 7 bytes. Block 2 (others 6 bytes, room 1): A, no change. The sweep moves one
  // block at a time: C C C (15 us, 6 bytes) is cheaper still but two blocks away.
  const Problem p = three_plan_layers(3, 7);
  BlockSweepStats stats;
  const auto labels = sweep_blocks(p, {kB, kA, kA}, exact_blocks(), never, kNoDeadline, stats);
  CHECK(labels == std::vector<LabelIndex>{kB, kC, kA});
  CHECK(evaluate(p, labels)->total_us == 18);
  CHECK(stats.gain_us == 5);
  CHECK(stats.solved == 3);
  CHECK(stats.reused == 0);
  CHECK(testing::brute_force(p).objective_us == 15);
}

TEST_CASE("block sweep: alike blocks in alike surroundings reuse one solve") {
  // Budget 16, B B B B (12 us, 16 bytes): every block has room 4 and the same problem; B is its
  // optimum. One solve, three reuses, nothing gained.
  const Problem p = three_plan_layers(4, 16);
  BlockSweepStats stats;
  const auto labels = sweep_blocks(p, {kB, kB, kB, kB}, exact_blocks(), never, kNoDeadline, stats);
  CHECK(labels == std::vector<LabelIndex>{kB, kB, kB, kB});
  CHECK(stats.solved == 1);
  CHECK(stats.reused == 3);
  CHECK(stats.gain_us == 0);
}

TEST_CASE("block sweep: stops once the cost is enough, and at a passed deadline") {
  // Budget 10, A A A A (40 us, 4 bytes): block 0 takes B (room 7: B 4 bytes, 3 us) -> 33 us,
  // enough at <= 35: the sweep stops there, one block solved.
  const Problem p = three_plan_layers(4, 10);
  BlockSweepStats stats;
  const auto enough = [](double cost) { return cost <= 35; };
  const auto labels = sweep_blocks(p, {kA, kA, kA, kA}, exact_blocks(), enough, kNoDeadline, stats);
  CHECK(labels == std::vector<LabelIndex>{kB, kA, kA, kA});
  CHECK(stats.solved == 1);
  BlockSweepStats late;
  const auto unchanged =
      sweep_blocks(p, {kA, kA, kA, kA}, exact_blocks(), never,
                   std::chrono::steady_clock::now() - std::chrono::seconds(1), late);
  CHECK(unchanged == std::vector<LabelIndex>{kA, kA, kA, kA});
  CHECK(late.solved == 0);
}

TEST_CASE("block sweep: on memory-bound layered stacks, never worse and always within the row") {
  // Stacks of 4-6 layers under a binding row, swept from the memory repair of the optimum without
  // the row: the sweep's labelling meets the row, costs no more than where it started (exactly
  // what it reports gained), and no less than the exact optimum.
  int gained = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    CAPTURE(seed);
    const Problem p = layered_problem({.layers = 4 + static_cast<std::int32_t>(seed % 3),
                                       .nodes_per_layer = 16,
                                       .memory_row = true,
                                       .memory_budget = 0.3,
                                       .seed = seed});
    REQUIRE(!p.repeats.empty());
    const Solution best = make_exact_solver()->solve(p, {}).value();
    // Start from the most frugal labelling in bytes: the cheapest label of every node among those
    // with its fewest bytes (meets the row whenever any labelling does).
    std::vector<LabelIndex> start(p.nodes.size(), 0);
    for (const MemoryTerm& t : p.memory[0].terms) {
      const auto& bytes = t.bytes;
      const auto& cost = p.nodes[static_cast<std::size_t>(t.node)].cost_us;
      LabelIndex pick = 0;
      for (LabelIndex l = 1; l < static_cast<LabelIndex>(bytes.size()); ++l) {
        if (bytes[l] < bytes[pick] || (bytes[l] == bytes[pick] && cost[l] < cost[pick])) pick = l;
      }
      start[static_cast<std::size_t>(t.node)] = pick;
    }
    const auto before = evaluate(p, start);
    if (!before.ok() || !before->feasible()) continue;
    BlockSweepStats stats;
    const auto labels = sweep_blocks(p, start, exact_blocks(), never, kNoDeadline, stats);
    const auto after = evaluate(p, labels);
    REQUIRE(after.ok());
    CHECK(after->feasible());
    CHECK(after->total_us <= before->total_us);
    CHECK(after->total_us == doctest::Approx(before->total_us - stats.gain_us));
    CHECK(after->total_us >= best.objective_us - 1e-6);
    if (stats.gain_us > 0) ++gained;
  }
  MESSAGE("gained: " << gained);
  CHECK(gained >= 9);
}

}  // namespace
}  // namespace dtplan::solve::detail
