// The memory repair of incumbents: the move with the least cost per byte first, a move that saves
// both first of all, the descent that follows, no answer where no single moves can meet a row, and
// on layered problems: every repaired labelling meets its row, no single move improves it, and it
// is never below the exact optimum.

#include "solve/memory/memory_repair.h"

#include <doctest/doctest.h>

#include "solve/evaluate.h"
#include "solve/generate.h"
#include "solve/solver.h"

namespace dtplan::solve::detail {
namespace {

const auto kNoDeadline = std::chrono::steady_clock::time_point::max();

// Three parameters, replicated (label 0: 8 bytes, free) or sharded (label 1: 1 byte, costs
// `shard_us`), under one row of `high` bytes.
Problem three_params(std::vector<double> shard_us, std::int64_t high) {
  Problem p;
  MemoryRow row{"params", {}, 0, high};
  for (std::size_t i = 0; i < shard_us.size(); ++i) {
    p.nodes.push_back({"w" + std::to_string(i), {0, shard_us[i]}});
    row.terms.push_back({static_cast<NodeIndex>(i), {8, 1}});
  }
  p.memory.push_back(std::move(row));
  return p;
}

double total(const Problem& p, const std::vector<LabelIndex>& y) {
  return evaluate(p, y).value().total_us;
}

TEST_CASE("memory repair: the cheapest bytes go first, and only as many as the row needs") {
  // 24 bytes against 17: one shard (7 bytes) is enough; w1's costs 3 us, the least (3/7 per byte).
  const Problem p = three_params({5, 3, 4}, 17);
  const auto y = repair_memory(p, {0, 0, 0}, kNoDeadline);
  REQUIRE(y.has_value());
  CHECK(*y == std::vector<LabelIndex>{0, 1, 0});
  // Against 10 bytes two shards are needed: w1 (3), then w2 (4): 8 + 1 + 1 = 10.
  const auto two = repair_memory(three_params({5, 3, 4}, 10), {0, 0, 0}, kNoDeadline);
  REQUIRE(two.has_value());
  CHECK(*two == std::vector<LabelIndex>{0, 1, 1});
}

TEST_CASE("memory repair: a move that saves cost and bytes both comes first; then descent") {
  // w0 sharded is cheaper than replicated (-2 us) but the start has it replicated; w1 is cheaper.
  Problem p = three_params({-2, 3, 4}, 17);
  const auto y = repair_memory(p, {0, 0, 0}, kNoDeadline);
  REQUIRE(y.has_value());
  CHECK(*y == std::vector<LabelIndex>{1, 0, 0});  // 1 + 8 + 8 = 17, cost -2
  // Descent after repair: an edge w0 -> w2 charging 10 us unless both labels agree makes w2
  // follow w0 once the row allows it (high 10: 1 + 8 + 1).
  p.memory[0].high_bytes = 10;
  p.edges.push_back({0, 2, 0, {0, 10, 10, 0}});
  const auto z = repair_memory(p, {0, 0, 0}, kNoDeadline);
  REQUIRE(z.has_value());
  // Repair (7 bytes a move): w1 (+3 us, 3/7), then w0 (-2 + 10 on the edge, 8/7) before w2
  // (+4 + 10, 2 per byte): {1, 1, 0}, 10 bytes, 11 us. Descent: w2 follows w0 (-10 + 4, 3 bytes),
  // after which w1 can go back (-3, 10 bytes): {1, 0, 1}, -2 + 0 + 4 = 2 us.
  CHECK(*z == std::vector<LabelIndex>{1, 0, 1});
  CHECK(total(p, *z) == doctest::Approx(2));
}

TEST_CASE("memory repair: none where single moves cannot meet the row") {
  // Every parameter sharded holds 3 bytes: a row of 2 cannot be met.
  CHECK_FALSE(repair_memory(three_params({1, 1, 1}, 2), {0, 0, 0}, kNoDeadline).has_value());
  // A forbidden shard blocks the only way down to 9 bytes (w1 and w2 sharded leave 10).
  Problem blocked = three_params({kForbidden, 1, 1}, 9);
  CHECK_FALSE(repair_memory(blocked, {0, 0, 0}, kNoDeadline).has_value());
}

TEST_CASE("memory repair: on layered problems, feasible, locally optimal, never below optimum") {
  int repaired = 0, broken = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    CAPTURE(seed);
    const Problem p = layered_problem({.layers = 3,
                                       .nodes_per_layer = 20,
                                       .memory_row = true,
                                       .memory_budget = 0.2,
                                       .integer_costs = true,
                                       .seed = seed});
    Problem relaxed = p;
    relaxed.memory.clear();
    const auto start = make_exact_solver()->solve(relaxed, {});
    REQUIRE(start.ok());
    broken += evaluate(p, start->labels).value().feasible() ? 0 : 1;
    const auto y = repair_memory(p, start->labels, kNoDeadline);
    if (!y) continue;
    ++repaired;
    const Evaluation ev = evaluate(p, *y).value();
    CHECK(ev.feasible());
    const auto best = make_exact_solver()->solve(p, {});
    REQUIRE(best.ok());
    REQUIRE(best->optimal);
    CHECK(ev.total_us >= best->objective_us);
    // No single relabelling that keeps the row lowers the cost.
    for (std::size_t v = 0; v < p.nodes.size(); ++v) {
      for (std::size_t l = 0; l < p.nodes[v].cost_us.size(); ++l) {
        std::vector<LabelIndex> z = *y;
        z[v] = static_cast<LabelIndex>(l);
        const Evaluation other = evaluate(p, z).value();
        if (other.feasible()) CHECK(other.total_us >= ev.total_us - 1e-6);
      }
    }
  }
  CHECK(repaired >= 3);
  CHECK(broken >= 3);  // the relaxed optima break the row: the repair had work to do
}

}  // namespace
}  // namespace dtplan::solve::detail
