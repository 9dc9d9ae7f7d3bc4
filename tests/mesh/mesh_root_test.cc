#include "mesh/mesh_root.h"

#include <doctest/doctest.h>

#include <random>

#include "support/layout_gen.h"
#include "support/mesh_gen.h"

namespace dtplan::mesh {
namespace {

using testing::Ints;
using testing::lay;
using testing::ok;

TEST_CASE("MeshRoot: rank lookup over random rank maps") {
  std::mt19937_64 rng(0x4007);
  for (int trial = 0; trial < 50; ++trial) {
    Ints ranks = testing::range(0, testing::uniform(rng, 1, 64));
    for (std::int64_t& r : ranks) r = r * 5 + 2;
    std::shuffle(ranks.begin(), ranks.end(), rng);
    auto root = ok(MeshRoot::create(ranks, {}, {}));
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      CHECK(root->index_of(ranks[i]) == static_cast<std::int64_t>(i));
    }
    CHECK_FALSE(root->index_of(0).has_value());
    CHECK_FALSE(root->index_of(ranks.size() * 5 + 2).has_value());
  }
}

TEST_CASE("MeshRoot: repeated and negative ranks, size limit") {
  CHECK(testing::error_of(MeshRoot::create({3, 1, 3}, {}, {})) ==
        "mesh ranks: rank 3 appears at positions 0 and 2 (rank_coords.size(0) must be 0 or 1, got "
        "2); each rank may appear once");
  CHECK(testing::error_of(MeshRoot::create({0, -4}, {}, {})) ==
        "mesh ranks: rank -4 at position 1 is negative");
  auto big = MeshRoot::create(Ints(static_cast<std::size_t>(kMaxRanks + 1), 0), {}, {});
  REQUIRE_FALSE(big.ok());
  CHECK(big.error().kind == core::ErrorKind::kUnsupported);
}

TEST_CASE("MeshRoot: the flatten registry keeps creation order") {
  auto root = ok(MeshRoot::create(testing::range(0, 8), {lay("8:1")}, {"w"}));
  CHECK(root->find_flattened("a") == nullptr);
  root->add_flattened("b", lay("4:2"));
  root->add_flattened("a", lay("4:1"));
  REQUIRE(root->flattened().size() == 2);
  CHECK(root->flattened()[0] == FlattenedEntry{"b", lay("4:2")});
  CHECK(root->find_flattened("a")->layout == lay("4:1"));
  CHECK(root->names() == std::vector<std::string>{"w"});
}

}  // namespace
}  // namespace dtplan::mesh
