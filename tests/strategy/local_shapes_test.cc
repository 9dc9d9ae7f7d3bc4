#include "strategy/local_shapes.h"

#include <doctest/doctest.h>

#include <random>

#include "placement/local_shape.h"
#include "placement/tensor_spec.h"
#include "support/strategy_testing.h"

namespace dtplan::strategy {
namespace {

using testing::pl;

TEST_CASE("shardable: AutoParallel's remove_invalid_configs walk") {
  CHECK(shardable(std::vector<std::int64_t>{16, 8192}, pl("S(0),S(1)"),
                  std::vector<std::int64_t>{8, 8}));
  CHECK_FALSE(shardable(std::vector<std::int64_t>{16, 8192}, pl("S(0),S(0)"),
                        std::vector<std::int64_t>{8, 8}));
  // Uneven splits pass as long as the length is at least the mesh dim size: 5 -> 2,2,1,0.
  CHECK(shardable(std::vector<std::int64_t>{5}, pl("S(0)"), std::vector<std::int64_t>{4}));
  CHECK_FALSE(shardable(std::vector<std::int64_t>{3}, pl("S(0)"), std::vector<std::int64_t>{4}));
  // The walk uses what coordinate 0 keeps: 9 -> 5 -> 3, then 3 >= 2.
  CHECK(shardable(std::vector<std::int64_t>{9}, pl("S(0),S(0),S(0)"),
                  std::vector<std::int64_t>{2, 2, 2}));
  CHECK_FALSE(shardable(std::vector<std::int64_t>{4}, pl("S(0),S(0),S(0)"),
                        std::vector<std::int64_t>{2, 2, 2}));
  // StridedShard counts as a shard, ceil-divided too (coordinate 0 of _S(0,2) on [2] would
  // keep both elements); R and P never fail; out-of-range dims do.
  CHECK_FALSE(shardable(std::vector<std::int64_t>{2, 8}, pl("_S(0,2),S(0)"),
                        std::vector<std::int64_t>{2, 2}));
  CHECK(shardable(std::vector<std::int64_t>{2}, pl("P(sum),R"), std::vector<std::int64_t>{8, 8}));
  CHECK_FALSE(shardable(std::vector<std::int64_t>{2}, pl("S(1)"), std::vector<std::int64_t>{2}));
  CHECK_FALSE(shardable(std::vector<std::int64_t>{}, pl("S(0)"), std::vector<std::int64_t>{1}));
}

TEST_CASE("local_shape_at_origin: AutoParallel's worked example and Partial") {
  CHECK(local_shape_at_origin(std::vector<std::int64_t>{16, 8192, 4096}, pl("S(0),S(2)"),
                              std::vector<std::int64_t>{8, 8}) == graph::Shape{2, 8192, 512});
  CHECK(local_shape_at_origin(std::vector<std::int64_t>{4096, 4096}, pl("P(sum),S(1)"),
                              std::vector<std::int64_t>{8, 8}) == graph::Shape{4096, 512});
}

TEST_CASE("local_shape_at_origin agrees with placement::local_shape at coordinate 0 (random)") {
  std::mt19937_64 rng(4242);
  for (int trial = 0; trial < 500; ++trial) {
    const std::size_t rank = 1 + rng() % 3, ndim = 1 + rng() % 3;
    graph::Shape shape;
    for (std::size_t i = 0; i < rank; ++i) shape.push_back(static_cast<std::int64_t>(rng() % 17));
    std::vector<std::int64_t> mesh;
    Placements p;
    for (std::size_t k = 0; k < ndim; ++k) {
      mesh.push_back(1 + static_cast<std::int64_t>(rng() % 4));
      switch (rng() % 4) {
        case 0:
          p.push_back(placement::Placement::replicate());
          break;
        case 1:
          p.push_back(placement::Placement::partial());
          break;
        case 2:
          p.push_back(placement::Placement::shard(static_cast<std::int32_t>(rng() % rank)));
          break;
        default:
          p.push_back(placement::Placement::strided_shard(
              static_cast<std::int32_t>(rng() % rank), 1 + static_cast<std::int64_t>(rng() % 3)));
      }
    }
    auto spec = placement::TensorSpec::make(shape, core::DType::kF32, p, mesh);
    REQUIRE(spec.ok());
    const std::vector<std::int64_t> origin(ndim, 0);
    auto expected = placement::local_shape(*spec, mesh, origin);
    REQUIRE(expected.ok());
    CAPTURE(placement::to_string(*spec));
    CHECK(local_shape_at_origin(shape, p, mesh) == *expected);
    // shardable() is exactly the ceil walk.
    bool walk = true;
    graph::Shape sizes = shape;
    for (std::size_t k = 0; k < ndim; ++k) {
      if (!p[k].is_shard_like()) continue;
      auto& s = sizes[static_cast<std::size_t>(p[k].dim())];
      walk = walk && s >= mesh[k];
      s = (s + mesh[k] - 1) / mesh[k];
    }
    CHECK(shardable(shape, p, mesh) == walk);
  }
}

TEST_CASE("partials_compatible and replicate_if") {
  CHECK(partials_compatible(pl("P(sum),P(avg),R")));
  CHECK(partials_compatible(pl("P(max),S(0),P(max)")));
  CHECK_FALSE(partials_compatible(pl("P(max),P(sum)")));
  CHECK_FALSE(partials_compatible(pl("P(avg),P(sum),P(min)")));
  CHECK(replicate_if(pl("S(2),P(sum)"),
                     [](const placement::Placement& p) { return p.is_partial(); }) == pl("S(2),R"));
  CHECK(all_replicate(3) == pl("R,R,R"));
}

}  // namespace
}  // namespace dtplan::strategy
