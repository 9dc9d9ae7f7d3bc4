#include "placement/shard_order.h"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "support/placement_specs.h"

namespace dtplan::placement {
namespace {

using Dims = std::vector<std::int32_t>;

TEST_CASE("from_steps sorts by tensor dim and keeps each dim's execution order") {
  ShardOrder order = ShardOrder::from_steps({{1, 0}, {0, 2}, {0, 1}}).value();
  CHECK(order.mesh_dims_of(0) == Dims{2, 1});
  CHECK(order.mesh_dims_of(1) == Dims{0});
  CHECK(order.mesh_dims_of(2).empty());
  CHECK(order.last_mesh_dim(0) == 1);
  CHECK_FALSE(order.last_mesh_dim(3).has_value());
  CHECK(order.position_of(2) == 0);
  CHECK(order.position_of(1) == 1);
  CHECK(order.position_of(0) == 0);
  CHECK_FALSE(order.position_of(5).has_value());
  CHECK_FALSE(order.is_default());
  CHECK(to_string(order) == "{0:[2,1],1:[0]}");
  CHECK(to_string(ShardOrder{}) == "{}");
  CHECK(ShardOrder::from_steps({{0, 1}, {1, 1}}).error().message ==
        "shard order: mesh dim 1 is listed twice");
  CHECK_FALSE(ShardOrder::from_steps({{-1, 0}}).ok());
}

TEST_CASE("default order: shard-like mesh dims per tensor dim, ascending") {
  std::vector<Placement> ps = {Placement::shard(1), Placement::shard(0),
                               Placement::strided_shard(1, 2), Placement::partial()};
  ShardOrder order = default_shard_order(ps);
  CHECK(order.mesh_dims_of(0) == Dims{1});
  CHECK(order.mesh_dims_of(1) == Dims{0, 2});
  CHECK(order.is_default());
  CHECK(validate_shard_order(order, ps).ok());
  CHECK(default_shard_order(std::vector<Placement>{Placement::replicate()}).empty());
}

TEST_CASE("planner edits: append makes the innermost split, pop_last undoes it") {
  ShardOrder order = ShardOrder::from_steps({{0, 0}, {2, 1}}).value();
  ShardOrder before = order;
  order.append(0, 3);
  order.append(1, 2);
  CHECK(order.mesh_dims_of(0) == Dims{0, 3});
  CHECK(order.mesh_dims_of(1) == Dims{2});
  CHECK(to_string(order) == "{0:[0,3],1:[2],2:[1]}");
  CHECK(order.pop_last(1) == 2);
  CHECK(order.pop_last(0) == 3);
  CHECK(order == before);

  // Random append/pop sequences keep the steps sorted by tensor dim (steps_of sees them all).
  std::mt19937_64 rng(0x5eed0002);
  for (int iter = 0; iter < 200; ++iter) {
    ShardOrder o;
    std::vector<Dims> model(3);
    std::vector<std::int32_t> free_dims = {0, 1, 2, 3, 4, 5};
    for (int step = 0; step < 12; ++step) {
      const auto t = static_cast<std::int32_t>(testing::uniform(rng, 0, 2));
      if (!free_dims.empty() && testing::uniform(rng, 0, 1) == 0) {
        const std::int32_t m = free_dims.back();
        free_dims.pop_back();
        o.append(t, m);
        model[static_cast<std::size_t>(t)].push_back(m);
      } else if (!model[static_cast<std::size_t>(t)].empty()) {
        CHECK(o.pop_last(t) == model[static_cast<std::size_t>(t)].back());
        free_dims.push_back(model[static_cast<std::size_t>(t)].back());
        model[static_cast<std::size_t>(t)].pop_back();
      }
      for (std::int32_t d = 0; d < 3; ++d)
        CHECK(o.mesh_dims_of(d) == model[static_cast<std::size_t>(d)]);
    }
  }
}

TEST_CASE("validate_shard_order: every listed mesh dim shards that tensor dim, all are listed") {
  std::vector<Placement> ps = {Placement::shard(0), Placement::shard(0), Placement::replicate()};
  CHECK(validate_shard_order(ShardOrder::from_steps({{0, 1}, {0, 0}}).value(), ps).ok());
  CHECK(validate_shard_order(ShardOrder::from_steps({{0, 0}}).value(), ps).error().message ==
        "shard order {0:[0]}: mesh dim 1 (S(0)) is not listed");
  CHECK(validate_shard_order(ShardOrder::from_steps({{0, 0}, {0, 1}, {0, 2}}).value(), ps)
            .error()
            .message == "shard order {0:[0,1,2]}: mesh dim 2 (R) does not shard tensor dim 0");
  CHECK(
      validate_shard_order(ShardOrder::from_steps({{1, 0}, {0, 1}}).value(), ps).error().message ==
      "shard order {0:[1],1:[0]}: mesh dim 0 (S(0)) does not shard tensor dim 1");
  CHECK(validate_shard_order(ShardOrder::from_steps({{0, 0}, {0, 1}, {0, 7}}).value(), ps)
            .error()
            .message.find("mesh dim 7 does not exist") != std::string::npos);
}

TEST_CASE("suffix positions become a shard order") {
  std::vector<Placement> ps = {Placement::shard(0), Placement::shard(0), Placement::shard(1),
                               Placement::shard(0)};
  std::vector<std::int32_t> none = {-1, -1, -1, -1};
  CHECK(shard_order_from_positions(ps, none).value() == default_shard_order(ps));
  std::vector<std::int32_t> given = {2, 0, -1, 1};
  ShardOrder order = shard_order_from_positions(ps, given).value();
  CHECK(order.mesh_dims_of(0) == Dims{1, 3, 0});
  CHECK(order.mesh_dims_of(1) == Dims{2});
  std::vector<std::int32_t> single = {-1, -1, 0, -1};
  CHECK(shard_order_from_positions(ps, single).value() == default_shard_order(ps));
  std::vector<std::int32_t> partial = {1, 0, -1, -1};
  CHECK(shard_order_from_positions(ps, partial).error().message ==
        "tensor dim 0 is split by 3 mesh dim(s) but only 2 carry a shard-order suffix [k]; "
        "give all or none");
  std::vector<std::int32_t> repeated = {1, 1, -1, 0};
  CHECK(shard_order_from_positions(ps, repeated).error().message.find("each once") !=
        std::string::npos);
  std::vector<std::int32_t> too_big = {0, 1, 1, 2};
  CHECK_FALSE(shard_order_from_positions(ps, too_big).ok());
}

}  // namespace
}  // namespace dtplan::placement
