#include "cost/group_topology.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

namespace dtplan::cost {
namespace {

GroupTopology of(std::vector<std::int64_t> ranks, std::int64_t gpn) {
  auto t = group_topology(ranks, gpn, "group");
  REQUIRE(t.ok());
  return t.value();
}

TEST_CASE("group topology: worked examples") {
  CHECK(of({0, 1, 2, 3, 4, 5, 6, 7}, 8) == GroupTopology{8, 1, 8, 8});
  CHECK(of({0, 8, 16, 24, 32, 40, 48, 56}, 8) == GroupTopology{8, 8, 1, 1});
  CHECK(of({0, 1, 8, 20}, 8) == GroupTopology{4, 3, 1, 2});
  CHECK(of({5}, 8) == GroupTopology{1, 1, 1, 1});
  GroupTopology partial = of({0, 1, 16, 17, 32, 33, 48, 49}, 8);  // 2 GPUs on each of 4 nodes
  CHECK(partial == uniform_topology(4, 2));
  CHECK(partial.uniform());
  CHECK(partial.ranks_per_node() == 2);
  CHECK(describe(partial) == "8 ranks (4 nodes x 2)");
  CHECK(describe(of({0, 1, 8, 20}, 8)) == "4 ranks (3 nodes, 1-2 per node)");
  CHECK(describe(of({3}, 8)) == "1 rank (1 node x 1)");
}

TEST_CASE("group topology: contiguous groups") {
  CHECK(contiguous_topology(16, 8, "n").value() == uniform_topology(2, 8));
  CHECK(contiguous_topology(12, 8, "n").value() == GroupTopology{12, 2, 4, 8});
  CHECK(contiguous_topology(3, 8, "n").value() == GroupTopology{3, 1, 3, 3});
  CHECK_FALSE(contiguous_topology(0, 8, "n").ok());
  CHECK_FALSE(contiguous_topology(8, 0, "n").ok());
}

TEST_CASE("group topology: a flattened group of mesh dims has the node structure of its ranks") {
  // Mesh 4 x 4 x 4 (dims a, b, c; rank = 16a + 4b + c) on 8-GPU nodes. Flattening dims (a, c)
  // at b = 0 gives ranks {0..3, 16..19, 32..35, 48..51}: 4 nodes with 4 members each.
  std::vector<std::int64_t> flat;
  for (int a = 0; a < 4; ++a) {
    for (int c = 0; c < 4; ++c) flat.push_back(16 * a + c);
  }
  CHECK(of(flat, 8) == uniform_topology(4, 4));
  // Flattening (b, c) at a = 1 gives ranks 16..31: two full nodes.
  std::vector<std::int64_t> bc;
  for (int i = 16; i < 32; ++i) bc.push_back(i);
  CHECK(of(bc, 8) == uniform_topology(2, 8));
  // Mesh 8 x 8 (dp, tp): the dp group at tp = 3 has one rank on each of 8 nodes.
  std::vector<std::int64_t> dp;
  for (int i = 0; i < 8; ++i) dp.push_back(8 * i + 3);
  CHECK(of(dp, 8) == uniform_topology(8, 1));
}

TEST_CASE("group topology: bad groups name the input") {
  std::vector<std::int64_t> dup = {0, 1, 1};
  auto r = group_topology(dup, 8, "--group");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "--group: rank 1 appears twice");
  std::vector<std::int64_t> neg = {0, -2};
  CHECK(group_topology(neg, 8, "--group").error().message.find("negative") != std::string::npos);
  CHECK_FALSE(group_topology(std::vector<std::int64_t>{}, 8, "--group").ok());
  std::vector<std::int64_t> one = {0};
  CHECK_FALSE(group_topology(one, 0, "--group").ok());
}

TEST_CASE("group topology: invariants over random groups") {
  std::mt19937_64 rng(42);
  for (int iter = 0; iter < 400; ++iter) {
    std::int64_t gpn = 1 + static_cast<std::int64_t>(rng() % 16);
    std::int64_t world = 1 + static_cast<std::int64_t>(rng() % 256);
    std::vector<std::int64_t> all(static_cast<std::size_t>(world));
    for (std::int64_t i = 0; i < world; ++i) all[static_cast<std::size_t>(i)] = i;
    std::shuffle(all.begin(), all.end(), rng);
    std::size_t size = 1 + rng() % all.size();
    std::vector<std::int64_t> group(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(size));
    GroupTopology t = of(group, gpn);
    std::set<std::int64_t> nodes;
    for (std::int64_t r : group) nodes.insert(r / gpn);
    CHECK(t.ranks == static_cast<std::int32_t>(size));
    CHECK(t.nodes == static_cast<std::int32_t>(nodes.size()));
    CHECK(t.min_ranks_per_node >= 1);
    CHECK(t.max_ranks_per_node <= gpn);
    CHECK(static_cast<std::int64_t>(t.nodes) * t.min_ranks_per_node <= t.ranks);
    CHECK(static_cast<std::int64_t>(t.nodes) * t.max_ranks_per_node >= t.ranks);
    // Order does not matter.
    std::shuffle(group.begin(), group.end(), rng);
    CHECK(of(group, gpn) == t);
    CHECK(hash_value(of(group, gpn)) == hash_value(t));
  }
}

}  // namespace
}  // namespace dtplan::cost
