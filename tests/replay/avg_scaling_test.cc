#include "replay/avg_scaling.h"

#include <doctest/doctest.h>

#include <random>

#include "sim/fake_process_group.h"
#include "sim/half_float.h"
#include "support/sim_reference.h"

namespace dtplan::replay {
namespace {

using core::DType;
using sim::Tensor;

TEST_CASE("avg scaling: worked examples") {
  const Tensor f = Tensor::from_values<float>({2}, {3.0f, 5.0f}).value();
  CHECK(premultiplied(f, 4).value() == Tensor::from_values<float>({2}, {0.75f, 1.25f}).value());
  // bf16: the scale 1/3 is rounded to bf16 first (0x3eab = 0.333984375), then each product.
  const std::uint16_t one = sim::f32_to_bf16(1.0f);
  const Tensor b =
      Tensor::from_values<std::uint16_t>(DType::kBF16, {1}, std::span(&one, 1)).value();
  CHECK(premultiplied(b, 3).value().values<std::uint16_t>()[0] == 0x3eab);
  Tensor i = Tensor::from_values<std::int32_t>({3}, {-7, 7, 9}).value();
  divide_in_place(i, 2);
  CHECK(i == Tensor::from_values<std::int32_t>({3}, {-3, 3, 4}).value());  // toward zero
  CHECK(avg_premultiplies(DType::kBF16));
  CHECK_FALSE(avg_premultiplies(DType::kI64));
}

// avg = premultiply, then the plain sum (floats) or the sum divided (integers): bit-identical to
// the fake process group's avg in the same reduction order, for every dtype, group size and order.
TEST_CASE("avg scaling: premultiply-then-sum and sum-then-divide equal the engine's avg") {
  std::mt19937_64 rng(271828);
  const DType dtypes[] = {DType::kF32, DType::kBF16, DType::kF16,
                          DType::kF64, DType::kI32,  DType::kI64};
  for (int iter = 0; iter < 120; ++iter) {
    const auto n = static_cast<std::int64_t>(1 + rng() % 9);
    const DType dtype = dtypes[rng() % 6];
    const auto order = rng() % 2 == 0 ? sim::OrderPolicy::kRing : sim::OrderPolicy::kTree;
    const auto count = static_cast<std::int64_t>(1 + rng() % 300);
    CAPTURE(n);
    CAPTURE(core::dtype_name(dtype));
    auto pg = sim::FakeProcessGroup::create({.world_size = n, .gpus_per_node = 2, .order = order})
                  .value();
    sim::Group all;
    sim::RankTensors inputs(n);
    for (std::int64_t r = 0; r < n; ++r) {
      all.push_back(r);
      inputs.set(r, testing::random_tensor(dtype, {count}, rng));
    }
    sim::RankTensors want = inputs;
    REQUIRE(pg.all_reduce({all}, sim::ReduceOp::kAvg, want).ok());
    sim::RankTensors got = inputs;
    if (avg_premultiplies(dtype)) {
      for (std::int64_t r = 0; r < n; ++r) got.set(r, premultiplied(inputs.at(r), n).value());
      REQUIRE(pg.all_reduce({all}, sim::ReduceOp::kSum, got).ok());
    } else {
      REQUIRE(pg.all_reduce({all}, sim::ReduceOp::kSum, got).ok());
      for (std::int64_t r = 0; r < n; ++r) divide_in_place(got.at(r), n);
    }
    CHECK(got == want);
  }
}

}  // namespace
}  // namespace dtplan::replay
