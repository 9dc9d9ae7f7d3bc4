#pragma once
// Element arithmetic and scalar loop bodies of the reduction engine (reduce_engine.h); an
// implementation header, included by reduce_engine.cc and reduce_kernels_x86.h only.
//
// A dtype's traits: S is what a buffer stores, C what the arithmetic runs in; load widens,
// round(v) rounds v to the dtype but keeps it in C, narrow(v) stores a value round() produced
// (exactly). Every helper is always inlined so that the loops vectorise wherever they are
// instantiated (also inside functions compiled for another instruction set).

#include <bit>
#include <cstdint>
#include <type_traits>

#include "sim/half_float.h"

namespace dtplan::sim::kernels {

template <class T>
struct Plain {
  using S = T;
  using C = T;
  static constexpr bool kFloat = std::is_floating_point_v<T>;
  [[gnu::always_inline]] static C load(S v) { return v; }
  [[gnu::always_inline]] static C round(C v) { return v; }
  [[gnu::always_inline]] static S narrow(C v) { return v; }
};
struct BF16 {
  using S = std::uint16_t;
  using C = float;
  static constexpr bool kFloat = true;
  [[gnu::always_inline]] static C load(S v) { return bf16_to_f32(v); }
  // f32_to_bf16 without leaving 32-bit lanes: round the low 16 bits away (NaN stays quiet).
  [[gnu::always_inline]] static C round(C v) {
    const auto x = std::bit_cast<std::uint32_t>(v);
    const std::uint32_t rounded = (x + 0x7fffU + ((x >> 16) & 1U)) & 0xffff0000U;
    const std::uint32_t quiet_nan = (x | 0x00400000U) & 0xffff0000U;
    return std::bit_cast<float>(select_bits((x & 0x7fffffffU) > 0x7f800000U, quiet_nan, rounded));
  }
  [[gnu::always_inline]] static S narrow(C v) {
    return static_cast<S>(std::bit_cast<std::uint32_t>(v) >> 16);
  }
};
struct F16 {
  using S = std::uint16_t;
  using C = float;
  static constexpr bool kFloat = true;
  [[gnu::always_inline]] static C load(S v) { return f16_to_f32(v); }
  [[gnu::always_inline]] static C round(C v) { return f16_to_f32(f32_to_f16(v)); }
  [[gnu::always_inline]] static S narrow(C v) { return f32_to_f16(v); }
};

struct Sum {
  template <class C>
  [[gnu::always_inline]] static C apply(C a, C b) {
    if constexpr (std::is_integral_v<C>) {
      using U = std::make_unsigned_t<C>;
      return static_cast<C>(static_cast<U>(a) + static_cast<U>(b));  // wraps like hardware
    } else {
      return a + b;
    }
  }
};
// NaN-ignoring like fmax/fmin: a NaN operand yields the other one.
struct Max {
  template <class C>
  [[gnu::always_inline]] static C apply(C a, C b) {
    return (b > a || a != a) ? b : a;  // NOLINT(misc-redundant-expression): NaN test
  }
};
struct Min {
  template <class C>
  [[gnu::always_inline]] static C apply(C a, C b) {
    return (b < a || a != a) ? b : a;  // NOLINT(misc-redundant-expression): NaN test
  }
};

// An operand's value; inputs are premultiplied (and rounded) under a float avg.
template <class A, bool kScale>
[[gnu::always_inline]] inline typename A::C read(typename A::S v, typename A::C scale) {
  if constexpr (kScale) {
    return A::round(A::load(v) * scale);
  } else {
    return A::load(v);
  }
}

// acc[i] = op(...op(op(acc[i], x0[i]), x1[i])..., xk[i]), rounded to the dtype after every step:
// consecutive program steps that add inputs to one register, fused into one pass.
template <class A, class Op, bool kScale, class... P>
[[gnu::always_inline]] inline void fold_body(typename A::S* __restrict acc, std::int64_t n,
                                             typename A::C scale, const P* __restrict... xs) {
  for (std::int64_t i = 0; i < n; ++i) {
    typename A::C a = A::load(acc[i]);
    ((a = A::round(Op::apply(a, read<A, kScale>(xs[i], scale)))), ...);
    acc[i] = A::narrow(a);
  }
}

// dst[i] = op(a[i], b[i]).
template <class A, class Op, bool kScaleA, bool kScaleB>
[[gnu::always_inline]] inline void combine_body(typename A::S* __restrict dst,
                                                const typename A::S* __restrict a,
                                                const typename A::S* __restrict b, std::int64_t n,
                                                typename A::C scale) {
  for (std::int64_t i = 0; i < n; ++i) {
    dst[i] = A::narrow(
        A::round(Op::apply(read<A, kScaleA>(a[i], scale), read<A, kScaleB>(b[i], scale))));
  }
}

}  // namespace dtplan::sim::kernels
