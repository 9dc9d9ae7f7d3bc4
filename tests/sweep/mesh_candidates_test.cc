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
using Shapes = std::vector<std::vector<std::int64_t>>;

Shapes shapes_of(const std::vector<MeshCandidate>& cands) {
  Shapes out;
  for (const MeshCandidate& c : cands) out.push_back(c.shape);
  return out;
}

// Ordered factorizations of n into k factors >= 2, by brute force over every k-tuple.
std::int64_t brute_count(std::int64_t n, int k) {
  if (k == 1) return n >= 2 ? 1 : 0;
  std::int64_t count = 0;
  for (std::int64_t d = 2; d <= n; ++d) {
    if (n % d == 0) count += brute_count(n / d, k - 1);
  }
  return count;
}

TEST_CASE("sweep candidates: world 64 over 1, 2 and 3 dims") {
  auto c = ok(enumerate_candidates({.world = 64, .dims = {1, 2, 3}}));
  REQUIRE(c.size() == 16);  // 1 + 5 (divisors 2..32) + C(5,2) = 10 compositions of 2^6
  CHECK(shapes_of(c) == Shapes{{64},
                               {2, 32},
                               {4, 16},
                               {8, 8},
                               {16, 4},
                               {32, 2},
                               {2, 2, 16},
                               {2, 4, 8},
                               {2, 8, 4},
                               {2, 16, 2},
                               {4, 2, 8},
                               {4, 4, 4},
                               {4, 8, 2},
                               {8, 2, 4},
                               {8, 4, 2},
                               {16, 2, 2}});
  CHECK(c[0].names == std::vector<std::string>{"dp"});
  CHECK(c[0].flatten.empty());
  CHECK(c[3].names == std::vector<std::string>{"dp", "tp"});
  REQUIRE(c[3].flatten.size() == 1);
  CHECK(c[3].flatten[0] == mesh::FlattenSpec{{"dp", "tp"}, ""});
  CHECK(c[11].names == std::vector<std::string>{"dp", "cp", "tp"});
  CHECK(c[11].flatten ==
        std::vector<mesh::FlattenSpec>{{{"dp", "cp"}, ""}, {{"dp", "cp", "tp"}, ""}});
}

TEST_CASE("sweep candidates: 1,024 ranks give 9 2-D and 36 3-D meshes") {
  CHECK(ok(enumerate_candidates({.world = 1024, .dims = {2}})).size() == 9);
  CHECK(ok(enumerate_candidates({.world = 1024, .dims = {3}})).size() == 36);
  CHECK(ok(enumerate_candidates({.world = 1024, .dims = {3, 2, 2}})).size() == 45);
}

TEST_CASE("sweep candidates: no flattened meshes when asked") {
  for (const MeshCandidate& c : ok(enumerate_candidates(
           {.world = 16, .dims = {1, 2, 3}, .flatten = FlattenPolicy::kNone}))) {
    CHECK(c.flatten.empty());
  }
}

TEST_CASE("sweep candidates: every candidate builds as a mesh with its flattened meshes") {
  for (const MeshCandidate& c : ok(enumerate_candidates({.world = 24, .dims = {1, 2, 3}}))) {
    auto loaded = ok(mesh::build_mesh(mesh_config(c, "h100-dgx"), "candidate"));
    CHECK(loaded.root.shape() == c.shape);
    CHECK(loaded.flattened.size() == c.flatten.size());
  }
}

TEST_CASE("sweep candidates: random worlds match a brute-force count, each shape once") {
  std::mt19937_64 rng(20240611);
  std::uniform_int_distribution<std::int64_t> world(1, 3000);
  for (int trial = 0; trial < 200; ++trial) {
    const std::int64_t n = world(rng);
    auto r = enumerate_candidates({.world = n, .dims = {1, 2, 3}});
    const std::int64_t expected = 1 + brute_count(n, 2) + brute_count(n, 3);
    REQUIRE(r.ok());
    const auto& cands = *r;
    CHECK(static_cast<std::int64_t>(cands.size()) == expected);
    std::set<std::vector<std::int64_t>> seen;
    for (std::size_t i = 0; i < cands.size(); ++i) {
      const MeshCandidate& c = cands[i];
      std::int64_t product = 1;
      for (std::int64_t s : c.shape) {
        product *= s;
        if (c.shape.size() > 1) CHECK(s >= 2);
      }
      CHECK(product == n);
      CHECK(c.names == role_names(static_cast<std::int32_t>(c.shape.size())));
      CHECK(seen.insert(c.shape).second);
      if (i > 0) {
        const MeshCandidate& p = cands[i - 1];
        CHECK((p.shape.size() < c.shape.size() ||
               (p.shape.size() == c.shape.size() && p.shape < c.shape)));
      }
    }
  }
}

TEST_CASE("sweep candidates: errors name the flag and the reason") {
  CHECK(error_of(enumerate_candidates({.world = 0})) == "--world: 0 is not a positive rank count");
  CHECK(error_of(enumerate_candidates({.world = 8, .dims = {2, 4}})) ==
        "--dims: 4 is not a mesh dim count in [1, 3]");
  CHECK(error_of(enumerate_candidates({.world = 8, .dims = {}})) == "--dims: no dim count given");
  auto prime = enumerate_candidates({.world = 7, .dims = {2, 3}});
  REQUIRE(!prime.ok());
  CHECK(prime.error().kind == core::ErrorKind::kUnsupported);
  CHECK(prime.error().message ==
        "--world: 7 has no factorization into 2 or 3 dims of size >= 2 (try --dims 1)");
  CHECK(enumerate_candidates({.world = std::int64_t{1} << 40}).error().kind ==
        core::ErrorKind::kUnsupported);
  // Regression: the sweep had a limit of its own (2^24 ranks) above that of every mesh.
  CHECK(enumerate_candidates({.world = core::kMaxRanks, .dims = {1}}).ok());
  auto over = enumerate_candidates({.world = core::kMaxRanks * 2, .dims = {1}});
  REQUIRE(!over.ok());
  CHECK(over.error().kind == core::ErrorKind::kUnsupported);
  CHECK(over.error().message ==
        "--world: 8388608 is more than the supported maximum of 4194304 ranks (kMaxRanks in "
        "core/limits.h)");
  CHECK(shapes_of(ok(enumerate_candidates({.world = 1, .dims = {1}}))) == Shapes{{1}});
}

TEST_CASE("sweep candidates: labels, mesh config and tp within a node") {
  CHECK(shape_label({8, 8}) == "8x8");
  CHECK(shape_label({64}) == "64");
  MeshCandidate c{{4, 16}, {"dp", "tp"}, {{{"dp", "tp"}, ""}}};
  const mesh::MeshConfig config = mesh_config(c, "h100-dgx");
  CHECK(config.shape == c.shape);
  CHECK(config.names == c.names);
  CHECK(config.flatten == c.flatten);
  CHECK(config.hardware == "h100-dgx");
  CHECK_FALSE(tp_within_node(c, 8));
  CHECK(tp_within_node(c, 16));
  CHECK(tp_within_node({{8, 8}, {"dp", "tp"}, {}}, 8));
  CHECK(tp_within_node({{16, 4}, {"dp", "tp"}, {}}, 8));
  CHECK_FALSE(tp_within_node({{21, 3}, {"dp", "tp"}, {}}, 8));
  CHECK(tp_within_node({{64}, {"dp"}, {}}, 8));
}

}  // namespace
}  // namespace dtplan::sweep
