#include "sim/tensor.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "sim/rank_tensors.h"

namespace dtplan::sim {
namespace {

TEST_CASE("tensor: factories, views and value semantics") {
  Tensor t = Tensor::from_values<float>({2, 3}, std::vector<float>{0, 1, 2, 3, 4, 5}).value();
  CHECK(t.dtype() == core::DType::kF32);
  CHECK(t.numel() == 6);
  CHECK(t.nbytes() == 24);
  CHECK(t.rank() == 2);
  CHECK(t.has_data());
  CHECK(t.values<float>()[4] == 4.0f);
  CHECK(describe(t) == "f32[2,3]");

  Tensor copy = t;  // deep
  copy.values<float>()[0] = 9.0f;
  CHECK(t.values<float>()[0] == 0.0f);
  CHECK(copy != t);
  copy.values<float>()[0] = 0.0f;
  CHECK(copy == t);

  Tensor z = Tensor::zeros(core::DType::kBF16, {4}).value();
  for (std::uint16_t v : z.values<std::uint16_t>()) CHECK(v == 0);

  Tensor s = Tensor::shape_only(core::DType::kBF16, {1 << 20}).value();
  CHECK_FALSE(s.has_data());
  CHECK(s.nbytes() == 2 << 20);
  CHECK(describe(s) == "bf16[1048576] (shape only)");
  CHECK(s != z);
  CHECK(t.without_data() == Tensor::shape_only(core::DType::kF32, {2, 3}).value());

  Tensor scalar = Tensor::zeros(core::DType::kI64, {}).value();
  CHECK(scalar.numel() == 1);
  CHECK(describe(scalar) == "i64[]");
  Tensor empty = Tensor::zeros(core::DType::kF32, {0, 5}).value();
  CHECK(empty.numel() == 0);
  CHECK(empty.has_data());
}

TEST_CASE("tensor: reshape keeps the bytes") {
  Tensor t =
      Tensor::from_values<std::int32_t>({6}, std::vector<std::int32_t>{1, 2, 3, 4, 5, 6}).value();
  Tensor r = std::move(t).reshaped({3, 2}).value();
  CHECK(r.shape() == Shape{3, 2});
  CHECK(r.values<std::int32_t>()[5] == 6);
  auto bad = std::move(r).reshaped({4, 2});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().kind == core::ErrorKind::kBadInput);
  CHECK(bad.error().message == "reshape: i32[3,2] has 6 elements, shape [4,2] has 8");
}

TEST_CASE("tensor: bad shapes and values are input errors") {
  auto neg = Tensor::zeros(core::DType::kF32, {2, -1});
  REQUIRE_FALSE(neg.ok());
  CHECK(neg.error().message == "tensor: shape [2,-1] has a negative size");
  const std::int64_t big = std::numeric_limits<std::int64_t>::max() / 2;
  auto overflow = Tensor::shape_only(core::DType::kF32, {big});
  REQUIRE_FALSE(overflow.ok());
  CHECK(overflow.error().kind == core::ErrorKind::kBadInput);
  auto count = Tensor::from_values<float>({3}, std::vector<float>{1, 2});
  REQUIRE_FALSE(count.ok());
  CHECK(count.error().message == "tensor values: 2 values for shape [3]");
  std::vector<float> f = {1};
  auto width = Tensor::from_values<float>(core::DType::kBF16, {1}, std::span<const float>(f));
  REQUIRE_FALSE(width.ok());
  CHECK(width.error().message == "tensor values: element width 4 does not match dtype bf16");
}

TEST_CASE("rank tensors: a store by global rank") {
  RankTensors store(8);
  CHECK(store.world_size() == 8);
  CHECK_FALSE(store.has(3));
  store.set(3, Tensor::zeros(core::DType::kF32, {4}).value());
  store.set(6, Tensor::zeros(core::DType::kF32, {2}).value());
  CHECK(store.has(3));
  CHECK_FALSE(store.has(8));
  CHECK_FALSE(store.has(-1));
  CHECK(store.ranks() == std::vector<std::int64_t>{3, 6});
  Tensor t = store.take(3);
  CHECK(t.numel() == 4);
  CHECK(store.ranks() == std::vector<std::int64_t>{6});
}

}  // namespace
}  // namespace dtplan::sim
