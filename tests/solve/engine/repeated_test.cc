// Repeated layers: solving a shared block interior once and combining the blocks by min-plus
// elimination of their ports gives exactly the optimum of the unrolled problem (checked against
// exhaustive search and the unrolled solve), with and without memory rows, followers, and blocks
// made unlike by a pin.

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <utility>

#include "solve/evaluate.h"
#include "solve/generate.h"
#include "solve/solver.h"
#include "support/brute_force.h"

namespace dtplan::solve {
namespace {

struct RepeatedSpec {
  int blocks = 3;
  int size = 3;  // nodes per block: a chain 0 -> 1 -> ... with a skip 0 -> 2
  bool memory = false;
  bool follower = false;        // node 1 follows node 0 in every block
  bool break_symmetry = false;  // a pin on block 1's node 1 only
  int odd_block = -1;           // this block's node 1 costs 1 more in its label 0
  std::uint64_t seed = 1;
};

Problem repeated(const RepeatedSpec& s) {
  std::mt19937_64 rng(s.seed);
  auto draw = [&](int hi) { return static_cast<int>(rng() % static_cast<std::uint64_t>(hi + 1)); };
  auto matrix = [&](std::size_t n) {
    std::vector<double> m(n);
    for (double& c : m) c = rng() % 9 == 0 ? kForbidden : draw(9);
    return m;
  };
  std::vector<std::vector<double>> unary(static_cast<std::size_t>(s.size));
  for (auto& u : unary) {
    u.resize(static_cast<std::size_t>(2 + draw(1)));
    for (double& c : u) c = draw(9);
  }
  std::vector<std::pair<int, int>> inner;
  for (int k = 1; k < s.size; ++k) inner.emplace_back(k - 1, k);
  if (s.size >= 3 && !s.follower) inner.emplace_back(0, 2);
  std::vector<std::vector<double>> inner_cost;
  for (auto [a, b] : inner) inner_cost.push_back(matrix(unary[a].size() * unary[b].size()));
  std::vector<LabelIndex> map(unary[0].size());
  for (auto& l : map) l = static_cast<LabelIndex>(draw(static_cast<int>(unary[1].size()) - 1));
  std::vector<std::int64_t> bytes(unary[1].size());
  for (auto& b : bytes) b = draw(9);

  Problem p;
  std::vector<std::int32_t> slots(static_cast<std::size_t>(s.blocks * s.size + 2), 0);
  auto edge = [&](NodeIndex from, NodeIndex to, std::vector<double> cost) {
    p.edges.push_back({from, to, slots[to]++, std::move(cost)});
  };
  p.nodes.push_back({"pro", {static_cast<double>(draw(9)), static_cast<double>(draw(9))}});
  RepeatGroup group;
  for (int b = 0; b < s.blocks; ++b) {
    group.blocks.emplace_back();
    for (int k = 0; k < s.size; ++k) {
      group.blocks.back().push_back(static_cast<NodeIndex>(p.nodes.size()));
      std::string name = "b";
      name += std::to_string(b * 10 + k);
      p.nodes.push_back({name, unary[k]});
      if (b == s.odd_block && k == 1) p.nodes.back().cost_us[0] += 1;
    }
    const auto& blk = group.blocks.back();
    for (std::size_t e = 0; e < inner.size(); ++e) {
      edge(blk[inner[e].first], blk[inner[e].second], inner_cost[e]);
    }
    const NodeIndex from = b == 0 ? 0 : group.blocks[b - 1].back();
    edge(from, blk[0], matrix(static_cast<std::size_t>(p.labels(from)) * unary[0].size()));
    if (s.follower) p.followers.push_back({blk[1], blk[0], map});
  }
  const NodeIndex last = group.blocks.back().back();
  p.nodes.push_back({"epi", {static_cast<double>(draw(9)), static_cast<double>(draw(9))}});
  edge(last, static_cast<NodeIndex>(p.nodes.size() - 1),
       matrix(static_cast<std::size_t>(p.labels(last)) * 2));
  if (s.memory) {
    MemoryRow row{"params", {}, 0, 0};
    std::int64_t lo = 0, hi = 0;
    for (const auto& blk : group.blocks) {
      row.terms.push_back({blk[1], bytes});
      lo += *std::min_element(bytes.begin(), bytes.end());
      hi += *std::max_element(bytes.begin(), bytes.end());
    }
    row.high_bytes = lo + (hi - lo) / 2;
    p.memory.push_back(std::move(row));
  }
  if (s.break_symmetry) p.pins.push_back({group.blocks[1][1], {0}});
  p.repeats.push_back(std::move(group));
  return p;
}

// The problem solved with shared interiors and unrolled, both without the LP bound (which may
// answer alone where it is tight).
std::pair<Solution, Solution> shared_and_unrolled(const Problem& p) {
  SolveOptions exploit;
  exploit.bound_fixing = BoundFixing::kOff;
  SolveOptions unroll = exploit;
  unroll.repeats = RepeatMode::kUnroll;
  auto shared = make_exact_solver()->solve(p, exploit);
  auto flat = make_exact_solver()->solve(p, unroll);
  REQUIRE_MESSAGE(shared.ok(), (shared.ok() ? std::string() : shared.error().message));
  REQUIRE_MESSAGE(flat.ok(), (flat.ok() ? std::string() : flat.error().message));
  return {std::move(shared).value(), std::move(flat).value()};
}

TEST_CASE("repeated layers: shared interiors == unrolled == brute force") {
  int shared = 0, cases = 0;
  for (std::uint64_t seed = 1; seed <= 24; ++seed) {
    RepeatedSpec spec;
    spec.seed = seed;
    spec.memory = seed % 2 == 0;
    spec.follower = seed % 3 == 0;
    spec.break_symmetry = seed % 5 == 0;
    spec.size = seed % 4 == 0 ? 4 : 3;
    spec.blocks = spec.size == 4 ? 2 : 3;
    const Problem p = repeated(spec);
    REQUIRE(validate(p).ok());
    const testing::BruteForceResult truth = testing::brute_force(p);
    // The elimination paths without the LP bound (which may answer alone where it is tight),
    // and the default.
    SolveOptions exploit;
    exploit.bound_fixing = BoundFixing::kOff;
    SolveOptions unroll = exploit;
    unroll.repeats = RepeatMode::kUnroll;
    for (const SolveOptions& o : {exploit, unroll, SolveOptions{}}) {
      auto s = make_exact_solver()->solve(p, o);
      INFO("seed " << seed << (o.repeats == RepeatMode::kUnroll ? " unrolled" : " shared")
                   << (o.bound_fixing == BoundFixing::kOff ? "" : ", LP bound first"));
      if (!truth.feasible) {
        CHECK_FALSE(s.ok());
        continue;
      }
      REQUIRE_MESSAGE(s.ok(), (s.ok() ? std::string() : s.error().message));
      CHECK(s->objective_us == truth.objective_us);
      CHECK(s->optimal);
      CHECK(evaluate(p, s->labels)->feasible());
      if (o.repeats == RepeatMode::kUnroll) CHECK(s->stats.repeat_interior_nodes == 0);
      if (o == exploit && s->stats.repeat_interior_nodes > 0) ++shared;
    }
    ++cases;
  }
  CHECK(cases == 24);
  CHECK(shared >= 12);  // most cases really go through the shared interior
}

TEST_CASE("repeated layers: LLaMA-shaped stacks, shared == unrolled, with a binding memory row") {
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    LayeredProblemSpec spec;
    spec.layers = 4;
    spec.nodes_per_layer = 24;
    spec.integer_costs = true;
    spec.memory_row = seed != 1;
    spec.memory_budget = 0.3;
    spec.seed = seed;
    const Problem p = layered_problem(spec);
    const auto [shared, flat] = shared_and_unrolled(p);
    auto by_default = make_exact_solver()->solve(p, {});
    REQUIRE_MESSAGE(by_default.ok(),
                    (by_default.ok() ? std::string() : by_default.error().message));
    CHECK(shared.objective_us == flat.objective_us);
    CHECK(by_default->objective_us == flat.objective_us);
    CHECK(by_default->optimal);
    CHECK(shared.optimal);
    CHECK(flat.optimal);
    CHECK(shared.stats.repeat_blocks == 4);
    CHECK(shared.stats.repeat_interior_nodes > 4 * 15);
    CHECK(evaluate(p, shared.labels)->feasible());
  }
}

// An end block unlike the others (LLaMA3-70B's last layer, after simplify()) would make its
// unlike position a port of every block; the group is shared without that block instead, which
// is still exact.
TEST_CASE("repeated layers: an unlike first or last block is left out of the shared interior") {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    RepeatedSpec spec;
    spec.seed = seed;
    spec.size = 4;
    spec.blocks = 5;
    spec.memory = seed % 2 == 0;
    spec.odd_block = seed % 4 < 2 ? 0 : spec.blocks - 1;
    const Problem p = repeated(spec);
    REQUIRE(validate(p).ok());
    INFO("seed " << seed << ", unlike block " << spec.odd_block);
    const auto [shared, flat] = shared_and_unrolled(p);
    CHECK(shared.objective_us == flat.objective_us);
    CHECK(shared.optimal);
    CHECK(evaluate(p, shared.labels)->feasible());
    // Nodes 1 and 2 of the four like blocks are eliminated once; the unlike block is unrolled.
    CHECK(shared.stats.repeat_blocks == 4);
    CHECK(shared.stats.repeat_interior_nodes == 4 * 2);
  }
}

}  // namespace
}  // namespace dtplan::solve
