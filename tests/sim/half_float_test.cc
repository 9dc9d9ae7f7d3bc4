#include "sim/half_float.h"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>

#include "support/sim_reference.h"

namespace dtplan::sim {
namespace {

using testing::ref_round_bf16;
using testing::ref_round_f16;
using testing::ref_widen;

bool is_nan16(std::uint16_t h, std::uint16_t exp_mask) {
  return (h & exp_mask) == exp_mask && (h & ~exp_mask & 0x7fff) != 0;
}

TEST_CASE("half floats: worked examples") {
  CHECK(f32_to_bf16(1.0f) == 0x3f80);
  CHECK(bf16_to_f32(0x3f80) == 1.0f);
  CHECK(f32_to_f16(1.0f) == 0x3c00);
  CHECK(f16_to_f32(0x3c00) == 1.0f);
  CHECK(f32_to_f16(65504.0f) == 0x7bff);
  CHECK(f32_to_f16(65519.99f) == 0x7bff);
  CHECK(f32_to_f16(65520.0f) == 0x7c00);  // exactly half an ulp past the max: to infinity
  CHECK(f32_to_f16(-1e10f) == 0xfc00);
  CHECK(f32_to_f16(0x1p-25f) == 0x0000);    // half of the smallest subnormal: tie to even (0)
  CHECK(f32_to_f16(0x1.8p-25f) == 0x0001);  // above the tie
  CHECK(f32_to_f16(0x1.8p-24f) == 0x0002);  // 1.5 quanta: tie to even (2)
  CHECK(f32_to_f16(0x1p-14f) == 0x0400);    // the smallest normal
  CHECK(f16_to_f32(0x0001) == 0x1p-24f);
  CHECK(f16_to_f32(0x8000) == -0.0f);
  CHECK(std::signbit(f16_to_f32(0x8000)));
  // bf16: 1 + 2^-8 is the tie between 1 and 1 + 2^-7: even (1); 1 + 3 * 2^-8 goes up.
  CHECK(f32_to_bf16(1.0f + 0x1p-8f) == 0x3f80);
  CHECK(f32_to_bf16(1.0f + 0x1.8p-7f) == 0x3f82);
  CHECK(f32_to_bf16(std::bit_cast<float>(0x7f7fffffU)) == 0x7f80);  // max float: to infinity
  CHECK(f32_to_bf16(INFINITY) == 0x7f80);
  CHECK(f32_to_f16(INFINITY) == 0x7c00);
  CHECK(is_nan16(f32_to_bf16(NAN), 0x7f80));
  CHECK(is_nan16(f32_to_f16(NAN), 0x7c00));
  CHECK((f32_to_f16(std::bit_cast<float>(0xff800001U)) & 0x8000) != 0);    // NaN keeps its sign
  CHECK(is_nan16(f32_to_f16(std::bit_cast<float>(0x7f800001U)), 0x7c00));  // payload below bit 13
  CHECK(is_nan16(f32_to_bf16(std::bit_cast<float>(0x7f800001U)), 0x7f80));
}

TEST_CASE("half floats: widening is exact for every pattern and narrowing inverts it") {
  for (std::uint32_t b = 0; b <= 0xffff; ++b) {
    const auto h = static_cast<std::uint16_t>(b);
    if (is_nan16(h, 0x7c00)) {
      CHECK(std::isnan(f16_to_f32(h)));
      CHECK(is_nan16(f32_to_f16(f16_to_f32(h)), 0x7c00));
    } else {
      REQUIRE(static_cast<double>(f16_to_f32(h)) == ref_widen(core::DType::kF16, h));
      REQUIRE(f32_to_f16(f16_to_f32(h)) == h);
    }
    if (is_nan16(h, 0x7f80)) {
      CHECK(is_nan16(f32_to_bf16(bf16_to_f32(h)), 0x7f80));
    } else {
      REQUIRE(f32_to_bf16(bf16_to_f32(h)) == h);
    }
  }
}

TEST_CASE("half floats: narrowing rounds to nearest even like the nearest-value search") {
  std::mt19937_64 rng(0x5eed16);
  auto check = [](float f) {
    REQUIRE(f32_to_bf16(f) == ref_round_bf16(f));
    REQUIRE(f32_to_f16(f) == ref_round_f16(f));
  };
  for (int i = 0; i < 60000; ++i) {
    // Random patterns over the whole range, and values near the fp16 range and its subnormals.
    auto bits = static_cast<std::uint32_t>(rng());
    float f = std::bit_cast<float>(bits);
    if (!std::isnan(f)) check(f);
    std::uniform_real_distribution<float> near(-70000.0f, 70000.0f);
    check(near(rng));
    check(std::ldexp(near(rng), -30));
  }
  // Every midpoint between neighbouring fp16 values, and just around it.
  for (std::uint32_t b = 0; b < 0x7bff; ++b) {
    const double mid = (ref_widen(core::DType::kF16, b) + ref_widen(core::DType::kF16, b + 1)) / 2;
    const auto f = static_cast<float>(mid);  // exact: fp16 midpoints have at most 12 bits
    check(f);
    check(std::nextafter(f, 0.0f));
    check(std::nextafter(f, INFINITY));
    check(-f);
  }
}

#if defined(__FLT16_MAX__)
TEST_CASE("half floats: agree with the compiler's _Float16 conversions") {
  std::mt19937_64 rng(99);
  for (int i = 0; i < 200000; ++i) {
    const float f = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
    if (std::isnan(f)) continue;
    const auto h = static_cast<_Float16>(f);
    REQUIRE(f32_to_f16(f) == std::bit_cast<std::uint16_t>(h));
  }
}
#endif

}  // namespace
}  // namespace dtplan::sim
