#include "sim/reduction_order.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "support/sim_reference.h"

namespace dtplan::sim {
namespace {

using I = std::vector<std::int32_t>;
using Nodes = std::vector<std::vector<std::int32_t>>;

GroupLayout layout_of(std::vector<std::int64_t> ranks, std::int64_t gpn) {
  auto l = group_layout(ranks, gpn, "group");
  REQUIRE(l.ok());
  return l.value();
}

TEST_CASE("reduction order: names and the algorithm map") {
  CHECK(reduction_order_name(ReductionOrder::kRing) == "ring");
  CHECK(reduction_order_name(ReductionOrder::kTree) == "tree");
  CHECK(reduction_order_name(ReductionOrder::kNone) == "none");
  CHECK(reduction_order_of(cost::Algorithm::kRing) == ReductionOrder::kRing);
  CHECK(reduction_order_of(cost::Algorithm::kPat) == ReductionOrder::kRing);
  CHECK(reduction_order_of(cost::Algorithm::kTree) == ReductionOrder::kTree);
  CHECK(reduction_order_of(cost::Algorithm::kNvls) == ReductionOrder::kTree);
  CHECK(reduction_order_of(cost::Algorithm::kNvlsTree) == ReductionOrder::kTree);
  CHECK(reduction_order_of(cost::Algorithm::kCollNetDirect) == ReductionOrder::kTree);
}

TEST_CASE("group layout: worked examples of the header") {
  GroupLayout a = layout_of({0, 1, 4, 5}, 2);
  CHECK(a.nodes == Nodes{{0, 1}, {2, 3}});
  CHECK(a.ring == I{0, 1, 2, 3});
  // [5,0,4,1]: nodes {4,5} (first seen through rank 5) then {0,1}; ring from group rank 0.
  GroupLayout b = layout_of({5, 0, 4, 1}, 2);
  CHECK(b.nodes == Nodes{{2, 0}, {1, 3}});
  CHECK(b.ring == I{0, 1, 3, 2});
  CHECK(b.ring_position == I{0, 1, 3, 2});
  // A DDP group of mesh (ddp=8, fsdp=5) on 8-GPU nodes: ranks f, f+5, ..., f+35.
  GroupLayout c = layout_of({1, 6, 11, 16, 21, 26, 31, 36}, 8);
  CHECK(c.nodes == Nodes{{0, 1}, {2}, {3, 4}, {5, 6}, {7}});
  CHECK(c.ring == I{0, 1, 2, 3, 4, 5, 6, 7});
  auto bad = group_layout(std::vector<std::int64_t>{0, 0}, 8, "fsdp group");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "fsdp group: rank 0 appears twice");
}

TEST_CASE("group layout: ring properties over random groups") {
  std::mt19937_64 rng(11);
  for (int iter = 0; iter < 500; ++iter) {
    const auto world = static_cast<std::int64_t>(1 + rng() % 64);
    const auto gpn = static_cast<std::int64_t>(1 + rng() % 8);
    const auto n = static_cast<std::int64_t>(1 + rng() % static_cast<std::uint64_t>(world));
    const Group g = testing::random_groups(world, n, 1, rng)[0];
    const GroupLayout l = layout_of(g, gpn);
    // The ring is a permutation starting at group rank 0, with ring_position its inverse.
    REQUIRE(l.ring.size() == g.size());
    CHECK(l.ring[0] == 0);
    I sorted = l.ring;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i)
      CHECK(sorted[i] == static_cast<std::int32_t>(i));
    for (std::size_t p = 0; p < l.ring.size(); ++p) {
      CHECK(l.ring_position[static_cast<std::size_t>(l.ring[p])] == static_cast<std::int32_t>(p));
    }
    // Nodes: every member exactly once, one node each, ascending global rank inside a node,
    // nodes in order of first appearance.
    std::set<std::int64_t> node_ids;
    std::int32_t members = 0;
    std::int32_t last_first = -1;
    for (const auto& node : l.nodes) {
      REQUIRE_FALSE(node.empty());
      const std::int64_t id = g[static_cast<std::size_t>(node[0])] / gpn;
      CHECK(node_ids.insert(id).second);
      const std::int32_t first = *std::min_element(node.begin(), node.end());
      CHECK(first > last_first);
      last_first = first;
      for (std::size_t k = 0; k < node.size(); ++k) {
        CHECK(g[static_cast<std::size_t>(node[k])] / gpn == id);
        if (k > 0)
          CHECK(g[static_cast<std::size_t>(node[k - 1])] < g[static_cast<std::size_t>(node[k])]);
        ++members;
      }
    }
    CHECK(members == static_cast<std::int32_t>(g.size()));
    // The ring visits each node's members consecutively (as a cycle, it crosses nodes exactly
    // once per node when there are several).
    std::int32_t crossings = 0;
    for (std::size_t p = 0; p < l.ring.size(); ++p) {
      const std::int64_t a = g[static_cast<std::size_t>(l.ring[p])] / gpn;
      const std::int64_t b = g[static_cast<std::size_t>(l.ring[(p + 1) % l.ring.size()])] / gpn;
      if (a != b) ++crossings;
    }
    CHECK(crossings == (l.nodes.size() > 1 ? static_cast<std::int32_t>(l.nodes.size()) : 0));
  }
}

TEST_CASE("binary tree: NCCL's shapes") {
  NodeTree t5 = binary_tree(5, 0);  // 0 -> 4 -> 2 -> {1, 3}
  CHECK(t5.root == 0);
  CHECK(t5.parent == I{-1, 2, 4, 2, 0});
  CHECK(t5.children[0] == I{4});
  CHECK(t5.children[2] == I{1, 3});
  NodeTree m4 = binary_tree(4, 1);  // mirror of 0 -> 2 -> {1, 3}: 3 -> 1 -> {0, 2}
  CHECK(m4.root == 3);
  CHECK(m4.parent == I{1, 3, 1, -1});
  NodeTree s5 = binary_tree(5, 1);  // shift by one: node r plays r - 1
  CHECK(s5.root == 1);
  CHECK(s5.parent == I{1, -1, 3, 0, 3});
  CHECK(binary_tree(1, 0).parent == I{-1});
  CHECK(binary_tree(2, 0).parent == I{-1, 0});
  CHECK(binary_tree(2, 1).parent == I{1, -1});
  NodeTree t8 = binary_tree(8, 0);  // 0 -> 4 -> {2 -> {1,3}, 6 -> {5,7}}
  CHECK(t8.parent == I{-1, 2, 4, 2, 0, 6, 4, 6});
}

TEST_CASE("binary tree: spanning, binary and shallow for every size") {
  for (std::int32_t m = 1; m <= 160; ++m) {
    for (int which = 0; which < 2; ++which) {
      const NodeTree t = binary_tree(m, which);
      CHECK(t.parent[static_cast<std::size_t>(t.root)] == -1);
      std::int32_t max_depth = 0;
      for (std::int32_t r = 0; r < m; ++r) {
        CHECK(t.children[static_cast<std::size_t>(r)].size() <= 2);
        for (std::int32_t c : t.children[static_cast<std::size_t>(r)]) {
          CHECK(t.parent[static_cast<std::size_t>(c)] == r);
        }
        // Every node reaches the root, in at most ceil(log2 m) + 1 steps.
        std::int32_t depth = 0;
        for (std::int32_t x = r; x != t.root; x = t.parent[static_cast<std::size_t>(x)]) {
          REQUIRE(t.parent[static_cast<std::size_t>(x)] >= 0);
          REQUIRE(++depth <= m);
        }
        max_depth = std::max(max_depth, depth);
      }
      CHECK(max_depth <= std::bit_width(static_cast<std::uint32_t>(m)) + 1);
    }
  }
}

}  // namespace
}  // namespace dtplan::sim
