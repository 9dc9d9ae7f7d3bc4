#include "sim/reduction_program.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "support/sim_reference.h"

namespace dtplan::sim {
namespace {

Operand in(std::int32_t g) { return {true, g}; }
Operand r(std::int32_t i) { return {false, i}; }

GroupLayout layout_of(std::vector<std::int64_t> ranks, std::int64_t gpn) {
  return group_layout(ranks, gpn, "group").value();
}

// Checks that a program is well formed: every input exactly once, registers written before they
// are read, never reading the destination as the right operand, and a defined result.
void check_well_formed(const ReductionProgram& p, std::int32_t n) {
  std::vector<int> used(static_cast<std::size_t>(n), 0);
  std::vector<bool> defined(static_cast<std::size_t>(p.registers), false);
  auto read = [&](Operand o) {
    if (o.input) {
      REQUIRE(o.index >= 0);
      REQUIRE(o.index < n);
      ++used[static_cast<std::size_t>(o.index)];
    } else {
      REQUIRE(o.index < p.registers);
      CHECK(defined[static_cast<std::size_t>(o.index)]);
    }
  };
  for (const ReductionStep& s : p.steps) {
    read(s.lhs);
    read(s.rhs);
    CHECK((s.rhs.input || s.rhs.index != s.dst));
    REQUIRE(s.dst < p.registers);
    defined[static_cast<std::size_t>(s.dst)] = true;
  }
  if (p.steps.empty()) {
    CHECK(p.result.input);
    ++used[static_cast<std::size_t>(p.result.index)];
  } else {
    CHECK_FALSE(p.result.input);
    CHECK(p.steps.back().dst == p.result.index);
  }
  for (int u : used) CHECK(u == 1);
  CHECK(static_cast<std::int32_t>(p.steps.size()) == n - 1);
}

TEST_CASE("reduction program: the worked examples of the header") {
  // Ring {0,1,2,3}, ending at position 1: ((x2 + x3) + x0) + x1.
  ReductionProgram ring = ring_program(layout_of({0, 1, 2, 3}, 8), 1);
  CHECK(ring.steps ==
        std::vector<ReductionStep>{{0, in(2), in(3)}, {0, r(0), in(0)}, {0, r(0), in(1)}});
  CHECK(ring.result == r(0));
  CHECK(ring.registers == 1);
  // Two nodes of two: node 0's chain, node 1's chain, then node 0 adds its child.
  ReductionProgram tree = tree_program(layout_of({0, 1, 2, 3}, 2), 0);
  CHECK(tree.steps ==
        std::vector<ReductionStep>{{0, in(1), in(0)}, {1, in(3), in(2)}, {0, r(0), r(1)}});
  CHECK(tree.registers == 2);
  // Tree 1 of two nodes is the mirror: node 1 is the root and adds node 0.
  ReductionProgram mirror = tree_program(layout_of({0, 1, 2, 3}, 2), 1);
  CHECK(mirror.steps ==
        std::vector<ReductionStep>{{0, in(3), in(2)}, {1, in(1), in(0)}, {0, r(0), r(1)}});
  // One rank: no steps, the input is the result.
  ReductionProgram one = ring_program(layout_of({7}, 8), 0);
  CHECK(one.steps.empty());
  CHECK(one.result == in(0));
  // A node with a single member contributes its input directly: ranks {0}, {8,9} on 8-GPU
  // nodes: x0 + (x2 + x1).
  ReductionProgram single = tree_program(layout_of({0, 8, 9}, 8), 0);
  CHECK(single.steps == std::vector<ReductionStep>{{1, in(2), in(1)}, {0, in(0), r(1)}});
}

TEST_CASE("reduction program: well formed for random groups") {
  std::mt19937_64 rng(5);
  for (int iter = 0; iter < 150; ++iter) {
    const auto world = static_cast<std::int64_t>(1 + rng() % 80);
    const auto n = static_cast<std::int64_t>(1 + rng() % static_cast<std::uint64_t>(world));
    const Group g = testing::random_groups(world, n, 1, rng)[0];
    const GroupLayout l = layout_of(g, static_cast<std::int64_t>(1 + rng() % 8));
    for (std::int32_t c = 0; c < static_cast<std::int32_t>(n); ++c) {
      check_well_formed(ring_program(l, c), static_cast<std::int32_t>(n));
    }
    check_well_formed(tree_program(l, 0), static_cast<std::int32_t>(n));
    check_well_formed(tree_program(l, 1), static_cast<std::int32_t>(n));
  }
}

TEST_CASE("reduction segments: ring chunks and tree halves tile the buffer") {
  const GroupLayout l = layout_of({5, 0, 4, 1}, 2);  // ring positions hold group ranks 0,1,3,2
  auto ar = all_reduce_segments(ReductionOrder::kRing, l, 10);  // chunks of 3: 3,3,3,1
  REQUIRE(ar.size() == 4);
  for (std::int32_t c = 0; c < 4; ++c) {
    CHECK(ar[static_cast<std::size_t>(c)].begin == 3 * c);
    CHECK(ar[static_cast<std::size_t>(c)].owner == -1);
    CHECK(ar[static_cast<std::size_t>(c)].program == ring_program(l, c));
  }
  CHECK(ar[3].end == 10);
  CHECK(all_reduce_segments(ReductionOrder::kRing, l, 2).size() == 2);  // empty chunks dropped
  auto tree = all_reduce_segments(ReductionOrder::kTree, l, 7);
  REQUIRE(tree.size() == 2);
  CHECK(tree[0].end == 4);
  CHECK(tree[0].program == tree_program(l, 0));
  CHECK(tree[1].program == tree_program(l, 1));
  // reduce_scatter: block g ends at the ring position of group rank g.
  auto rs = reduce_scatter_segments(ReductionOrder::kRing, l, 5);
  REQUIRE(rs.size() == 4);
  CHECK(rs[2].begin == 10);
  CHECK(rs[2].owner == 2);
  CHECK(rs[2].program == ring_program(l, 3));
  auto rs_tree = reduce_scatter_segments(ReductionOrder::kTree, l, 5);
  REQUIRE(rs_tree.size() == 8);
  CHECK(rs_tree[3].begin == 8);
  CHECK(rs_tree[3].end == 10);
  CHECK(rs_tree[3].owner == 1);
  CHECK(reduce_scatter_segments(ReductionOrder::kRing, l, 0).empty());
}

}  // namespace
}  // namespace dtplan::sim
