#include "replay/call_check.h"

#include <doctest/doctest.h>

#include <random>

#include "replay/local_group.h"
#include "sim/half_float.h"
#include "support/corrupting_group.h"
#include "support/sim_reference.h"

namespace dtplan::replay {
namespace {

using collective::Collective;
using core::DType;

TEST_CASE("call check: fill values (worked example)") {
  auto f = fill_input(DType::kF32, {4}, 1).value();
  // ((5 * 1 + 3 i) mod 9) - 4 for i = 0..3: 5, 8, 11 -> 2, 14 -> 5 => 1, 4, -2, 1.
  CHECK(std::vector<float>(f.values<float>().begin(), f.values<float>().end()) ==
        std::vector<float>{1, 4, -2, 1});
  auto b = fill_input(DType::kBF16, {2}, 0).value();
  CHECK(sim::bf16_to_f32(b.values<std::uint16_t>()[0]) == -4.0f);
  CHECK(sim::bf16_to_f32(b.values<std::uint16_t>()[1]) == -1.0f);
  auto i = fill_input(DType::kI64, {3}, 2).value();
  CHECK(
      std::vector<std::int64_t>(i.values<std::int64_t>().begin(), i.values<std::int64_t>().end()) ==
      std::vector<std::int64_t>{-3, 0, 3});
  auto u = fill_input(DType::kU8, {2}, 1).value();
  CHECK(u.data()[0] == std::byte{31});
  CHECK(u.data()[1] == std::byte{38});
}

TEST_CASE("call check: the fake passes every collective, dtype and op; a faulty one fails") {
  std::mt19937_64 rng(77);
  const Collective collectives[] = {Collective::kAllGather, Collective::kReduceScatter,
                                    Collective::kAllReduce, Collective::kAllToAll,
                                    Collective::kBroadcast};
  const DType dtypes[] = {DType::kF32, DType::kBF16, DType::kF16,
                          DType::kF64, DType::kI32,  DType::kI64};
  const sim::ReduceOp ops[] = {sim::ReduceOp::kSum, sim::ReduceOp::kAvg, sim::ReduceOp::kMax,
                               sim::ReduceOp::kMin};
  for (int iter = 0; iter < 60; ++iter) {
    const std::int64_t world = 2 + static_cast<std::int64_t>(rng() % 7);
    const std::int64_t n = 1 + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(world));
    const CollectiveCall call{collectives[rng() % 5],
                              testing::random_groups(world, n, 1 + rng() % 3, rng), ops[rng() % 4],
                              static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n))};
    const DType dtype = dtypes[rng() % 6];
    const sim::Shape shape{n * (1 + static_cast<std::int64_t>(rng() % 5))};
    INFO(sim::describe(call) << " " << core::dtype_name(dtype));
    auto pg = LocalReplayGroup::create({.world_size = world}).value();
    auto good = check_call(*pg, call, dtype, shape);
    REQUIRE_MESSAGE(good.ok(), (good.ok() ? std::string() : good.error().message));
    std::int64_t members = 0;
    for (const auto& g : call.groups) members += static_cast<std::int64_t>(g.size());
    const std::int64_t per_rank = sim::output_shape(call.collective, n, shape, "").value()[0];
    CHECK(good->elements == members * per_rank);
    CHECK(good->wrong_elements == 0);
    CHECK(!good->skipped);
    CHECK(check_call(*pg, call, dtype, shape, 1).value() == CallCheck{0, 0, true});
    testing::CorruptingGroup bad(LocalReplayGroup::create({.world_size = world}).value(),
                                 call.groups[0][0]);
    CHECK(check_call(bad, call, dtype, shape).value().wrong_elements == 1);
  }
}

}  // namespace
}  // namespace dtplan::replay
