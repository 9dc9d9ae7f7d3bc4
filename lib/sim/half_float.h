#pragma once
// Bit-exact conversions between fp32 and the 16-bit float formats bf16 and IEEE fp16, as GPUs
// do them: widening is exact; narrowing rounds to nearest with ties to even, overflows to
// infinity and keeps a NaN a quiet NaN of the same sign. The reduction engine computes on 16-bit
// types the way NCCL's kernels do: widen both operands to fp32, apply the op in fp32, narrow the
// result after every step. Because fp32 carries at least 2p + 2 significand bits for both formats
// (p = 8 for bf16, 11 for fp16), that double rounding equals the correctly rounded 16-bit
// operation. The functions are branch-free (selects only) and always inlined, so the engine's
// loops vectorise.
//
//   f32_to_bf16(1.0f) == 0x3f80;   bf16_to_f32(0x3f80) == 1.0f
//   f32_to_f16(65504.0f) == 0x7bff; f32_to_f16(65520.0f) == 0x7c00 (rounds to infinity)
//   f32_to_f16(0x1p-25f) == 0x0000 (tie to even); f32_to_f16(0x1.8p-25f) == 0x0001

#include <bit>
#include <cstdint>

namespace dtplan::sim {

// c ? a : b on bit patterns, computed with masks: the compiler keeps the floating-point
// operations that feed a and b unconditional (a conditional would let it sink them into branches
// it may not merge back under -ftrapping-math, and the loop would not vectorise).
[[gnu::always_inline]] inline std::uint32_t select_bits(bool c, std::uint32_t a, std::uint32_t b) {
  const std::uint32_t mask = 0U - static_cast<std::uint32_t>(c);
  return (a & mask) | (b & ~mask);
}

// Exact: bf16 is the top half of an fp32.
[[gnu::always_inline]] inline float bf16_to_f32(std::uint16_t h) {
  return std::bit_cast<float>(std::uint32_t{h} << 16);
}

[[gnu::always_inline]] inline std::uint16_t f32_to_bf16(float f) {
  const auto x = std::bit_cast<std::uint32_t>(f);
  // Adding 0x7fff plus the kept lsb rounds the dropped 16 bits to nearest, ties to even; a carry
  // out of the significand bumps the exponent, and past the largest finite value gives infinity.
  const std::uint32_t rounded = (x + 0x7fffU + ((x >> 16) & 1U)) >> 16;
  const std::uint32_t quiet_nan = (x >> 16) | 0x40U;
  return static_cast<std::uint16_t>(
      select_bits((x & 0x7fffffffU) > 0x7f800000U, quiet_nan, rounded));
}

// Exact for every pattern (subnormals included); NaN payloads keep their top bits.
[[gnu::always_inline]] inline float f16_to_f32(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t{h & 0x8000U} << 16;
  const std::uint32_t magnitude = h & 0x7fffU;
  // Exponent and significand moved into fp32's fields read as a value 2^112 too small for
  // normals, and as an fp32 subnormal of the same scale for fp16 subnormals: one exact multiply.
  const float scaled = std::bit_cast<float>(magnitude << 13) * 0x1p112f;
  const std::uint32_t finite = std::bit_cast<std::uint32_t>(scaled);
  const std::uint32_t special = 0x7f800000U | ((magnitude & 0x3ffU) << 13);  // inf or NaN
  return std::bit_cast<float>(select_bits(magnitude >= 0x7c00U, special, finite) | sign);
}

[[gnu::always_inline]] inline std::uint16_t f32_to_f16(float f) {
  const auto x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (x >> 16) & 0x8000U;
  const std::uint32_t a = x & 0x7fffffffU;
  // Normal results (|f| in [2^-14, 65520)): rebias the exponent by -112 (0xc8000000 is
  // -(112 << 23) mod 2^32), then round the 13 dropped bits to nearest even.
  const std::uint32_t normal = (a + 0xc8000fffU + ((a >> 13) & 1U)) >> 13;
  // Subnormal results (|f| < 2^-14): adding 0.5 puts the fp16 subnormal quantum 2^-24 at fp32's
  // last place, so the fp32 adder rounds exactly as fp16 must; the bits above 0.5 are the result.
  const float shifted = std::bit_cast<float>(a) + 0.5f;
  const std::uint32_t subnormal = std::bit_cast<std::uint32_t>(shifted) - 0x3f000000U;
  std::uint32_t magnitude = select_bits(a >= 0x38800000U, normal, subnormal);
  magnitude = select_bits(a >= 0x477ff000U, 0x7c00U, magnitude);  // >= 65520: infinity
  magnitude = select_bits(a > 0x7f800000U, 0x7e00U | ((a >> 13) & 0x3ffU), magnitude);  // NaN
  return static_cast<std::uint16_t>(sign | magnitude);
}

}  // namespace dtplan::sim
