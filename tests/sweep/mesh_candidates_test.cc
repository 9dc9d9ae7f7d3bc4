#include "sweep/mesh_candidates.h"

#include <doctest/doctest.h>

#include <random>
#include <set>

#include "core/limits.h"
#include "support/mesh_gen.h"

namespace dtplan::sweep {
namespace {

using testing::error_of;
using testing::ok;
using Names = std::vector<std::string>;
using Shapes = std::vector<std::vector<std::int64_t>>;

Shapes shapes_of(const std::vector<MeshCandidate>& cands) {
  Shapes out;
  for (const MeshCandidate& c : cands) out.push_back(c.shape);
  return out;
}

// Every (dp_replicate, dp_shard, cp, tp) whose product is n, dp_replicate 1, tp dividing `node`
// (0: any), counted by brute force over all 4-tuples.
std::int64_t brute_count(std::int64_t n, std::int64_t node) {
  std::int64_t count = 0;
  for (std::int64_t s = 1; s <= n; ++s) {
    for (std::int64_t c = 1; s * c <= n; ++c) {
      for (std::int64_t t = 1; s * c * t <= n; ++t) {
        if (s * c * t != n) continue;
        if (node > 0 && node % t != 0) continue;
        ++count;
      }
    }
  }
  return count;
}

TEST_CASE("sweep candidates: 16 ranks, tp within a node of 8") {
  auto c = ok(enumerate_candidates({.world = 16, .dims = {1, 2}, .gpus_per_node = 8}));
  // 1-D: dp_shard 16, cp 16 (tp 16 spans nodes); 2-D: (dp_shard, cp) and (cp, tp)... 3 shapes
  // each for the three pairs (tp 2, 4 or 8 within the node).
  REQUIRE(c.size() == 11);
  CHECK(c[0].shape == std::vector<std::int64_t>{16});
  CHECK(c[0].names == Names{"cp"});
  CHECK(c[1].names == Names{"dp_shard"});
  CHECK(c[1].flatten.empty());
  std::set<Names> patterns;
  for (const MeshCandidate& m : c) patterns.insert(m.names);
  CHECK(
      patterns ==
      std::set<Names>{{"cp"}, {"dp_shard"}, {"cp", "tp"}, {"dp_shard", "cp"}, {"dp_shard", "tp"}});
  for (const MeshCandidate& m : c) {
    CHECK(tp_within_node(m, 8));
    if (m.names == Names{"dp_shard", "cp"}) {
      CHECK(m.flatten == std::vector<mesh::FlattenSpec>{{{"dp_shard", "cp"}, "dp_shard_cp"}});
    }
    if (m.names == Names{"dp_shard", "tp"}) {
      CHECK(m.flatten == std::vector<mesh::FlattenSpec>{{{"dp_shard", "tp"}, ""}});
    }
  }
}

TEST_CASE("sweep candidates: torchtitan's flattened meshes on 4-D") {
  auto c = ok(enumerate_candidates(
      {.world = 16, .dims = {4}, .roles = {.dp_replicate = {2}}, .gpus_per_node = 8}));
  REQUIRE(c.size() == 1);
  CHECK(c[0].shape == std::vector<std::int64_t>{2, 2, 2, 2});
  CHECK(c[0].names == Names{"dp_replicate", "dp_shard", "cp", "tp"});
  CHECK(c[0].flatten ==
        std::vector<mesh::FlattenSpec>{{{"dp_replicate", "dp_shard"}, "dp"},
                                       {{"dp_shard", "cp"}, "dp_shard_cp"},
                                       {{"dp_replicate", "dp_shard", "cp"}, "dp_cp"},
                                       {{"dp_replicate", "dp_shard", "cp", "tp"}, ""}});
  auto loaded = ok(mesh::build_mesh(mesh_config(c[0], "h100-dgx"), "candidate"));
  CHECK(loaded.flattened.size() == 4);
}

TEST_CASE("sweep candidates: role lists and the tp rule are honoured") {
  auto c = ok(enumerate_candidates({.world = 64,
                                    .roles = {.dp_replicate = {1, 2}, .cp = {1}, .tp = {2, 8}},
                                    .gpus_per_node = 8}));
  CHECK(!c.empty());
  for (const MeshCandidate& m : c) {
    CHECK(role_degree(m, "cp") == 1);
    const std::int64_t tp = role_degree(m, "tp");
    CHECK((tp == 2 || tp == 8));
    CHECK(role_degree(m, "dp_replicate") <= 2);
    CHECK(role_degree(m, "dp_replicate") * role_degree(m, "dp_shard") * tp == 64);
  }
  // tp at most 4 per node: no tp 8.
  for (const MeshCandidate& m :
       ok(enumerate_candidates({.world = 64, .gpus_per_node = 8, .max_tp_per_node = 4}))) {
    CHECK(role_degree(m, "tp") <= 4);
  }
  // Across nodes: tp 16 and 64 appear, and are not within a node.
  std::set<std::int64_t> tps;
  for (const MeshCandidate& m :
       ok(enumerate_candidates({.world = 64, .gpus_per_node = 8, .tp_across_nodes = true}))) {
    tps.insert(role_degree(m, "tp"));
    CHECK(tp_within_node(m, 8) == (8 % role_degree(m, "tp") == 0));
  }
  CHECK(tps == std::set<std::int64_t>{1, 2, 4, 8, 16, 32, 64});
}

TEST_CASE("sweep candidates: training choices and plans multiply the meshes") {
  auto c =
      ok(enumerate_candidates({.world = 4,
                               .dims = {2},
                               .roles = {.cp = {1}},
                               .batches = {8, 16, 8},
                               .checkpoints = {core::CheckpointPolicy::kFull},
                               .parallelize = {Parallelize::kOptimal, Parallelize::kTorchtitan}}));
  // One mesh (2x2 dp_shard,tp) x 2 batches (the repeat dropped) x 1 checkpoint x 2 plans.
  REQUIRE(c.size() == 4);
  CHECK(c[0].batch == 8);
  CHECK(c[0].parallelize == Parallelize::kOptimal);
  CHECK(c[1].parallelize == Parallelize::kTorchtitan);
  CHECK(c[2].batch == 16);
  CHECK_FALSE(c[0].grad_accum.has_value());
  CHECK(c[3].checkpoint == core::CheckpointPolicy::kFull);
  CHECK(candidate_text(c[3]) == "2x2 (dp_shard,tp) batch 16 checkpoint full torchtitan");
}

TEST_CASE("sweep candidates: random worlds match a brute-force count, each mesh once") {
  std::mt19937_64 rng(20240611);
  std::uniform_int_distribution<std::int64_t> world(1, 600);
  for (int trial = 0; trial < 60; ++trial) {
    const std::int64_t n = world(rng);
    const std::int64_t node = trial % 2 == 0 ? 8 : 0;
    auto r = enumerate_candidates({.world = n, .gpus_per_node = node});
    REQUIRE(r.ok());
    CHECK(static_cast<std::int64_t>(r->size()) == brute_count(n, node));
    std::set<std::pair<Names, std::vector<std::int64_t>>> seen;
    for (const MeshCandidate& c : *r) {
      std::int64_t product = 1;
      for (std::int64_t s : c.shape) {
        product *= s;
        if (n > 1) CHECK(s >= 2);
      }
      CHECK(product == n);
      CHECK(seen.insert({c.names, c.shape}).second);
    }
  }
}

TEST_CASE("sweep candidates: errors name the flag and the reason") {
  CHECK(error_of(enumerate_candidates({.world = 0})) == "--world: 0 is not a positive rank count");
  CHECK(error_of(enumerate_candidates({.world = 8, .dims = {2, 5}})) ==
        "--dims: 5 is not a mesh dim count in [1, 4]");
  CHECK(error_of(enumerate_candidates({.world = 8, .dims = {}})) == "--dims: no dim count given");
  CHECK(error_of(enumerate_candidates({.world = 8, .roles = {.tp = {0}}})) ==
        "--tp: 0 is not a positive degree");
  auto prime = enumerate_candidates({.world = 7, .dims = {2, 3}});
  REQUIRE(!prime.ok());
  CHECK(prime.error().kind == core::ErrorKind::kUnsupported);
  CHECK(prime.error().message == "--world: 7 has no split into 2 or 3 dims");
  auto tp =
      enumerate_candidates({.world = 16, .dims = {1}, .roles = {.tp = {16}}, .gpus_per_node = 8});
  REQUIRE(!tp.ok());
  CHECK(tp.error().message ==
        "--world: 16 has no split into 1 dims with tp in {16}, tp within a node of 8 GPUs");
  CHECK(enumerate_candidates({.world = std::int64_t{1} << 40}).error().kind ==
        core::ErrorKind::kUnsupported);
  CHECK(enumerate_candidates({.world = core::kMaxRanks, .dims = {1}}).ok());
  auto over = enumerate_candidates({.world = core::kMaxRanks * 2, .dims = {1}});
  REQUIRE(!over.ok());
  CHECK(over.error().message ==
        "--world: 8388608 is more than the supported maximum of 4194304 ranks (kMaxRanks in "
        "core/limits.h)");
  CHECK(shapes_of(ok(enumerate_candidates({.world = 1, .dims = {1}}))) == Shapes{{1}});
  CHECK(error_of(parse_parallelize("fsdp", "--parallelize")) ==
        "--parallelize: 'fsdp' is not one of optimal, torchtitan");
}

TEST_CASE("sweep candidates: labels, mesh config and tp within a node") {
  CHECK(shape_label({8, 8}) == "8x8");
  CHECK(shape_label({64}) == "64");
  MeshCandidate c{{4, 16}, {"dp_shard", "tp"}, {{{"dp_shard", "tp"}, ""}}};
  const mesh::MeshConfig config = mesh_config(c, "h100-dgx");
  CHECK(config.shape == c.shape);
  CHECK(config.names == c.names);
  CHECK(config.flatten == c.flatten);
  CHECK(config.hardware == "h100-dgx");
  CHECK_FALSE(tp_within_node(c, 8));
  CHECK(tp_within_node(c, 16));
  CHECK(tp_within_node({{16, 4}, {"dp_shard", "tp"}, {}}, 8));
  CHECK_FALSE(tp_within_node({{21, 3}, {"dp_shard", "tp"}, {}}, 8));
  CHECK(tp_within_node({{64}, {"dp_shard"}, {}}, 8));
  CHECK(tp_within_node({{8, 8}, {"dp_shard", "cp"}, {}}, 4));
  CHECK(role_degree(c, "tp") == 16);
  CHECK(role_degree(c, "cp") == 1);
  CHECK(candidate_text(c) == "4x16 (dp_shard,tp)");
}

}  // namespace
}  // namespace dtplan::sweep
