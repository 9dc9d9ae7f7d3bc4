#pragma once
// The reduction engine's loops compiled for AVX2 with F16C, run behind a run-time CPU check (an
// implementation header of reduce_engine.cc). They are the scalar bodies of reduce_kernels.h,
// vectorised twice as wide, except for f16, whose conversions the compiler does not vectorise:
// it gets explicit F16C loops (8 lanes per instruction). F16C converts exactly as half_float.h
// does (round to nearest even, overflow to infinity, NaN made quiet with its top payload bits),
// so both paths produce identical bits; the engine's tests run both.

#include "sim/reduce_kernels.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define DTPLAN_SIM_X86_KERNELS 1
#include <immintrin.h>

namespace dtplan::sim::kernels {

inline bool cpu_has_avx2_f16c() {
  static const bool has =
      __builtin_cpu_supports("avx2") != 0 && __builtin_cpu_supports("f16c") != 0;
  return has;
}

#define DTPLAN_AVX2 gnu::target("avx2,f16c"), gnu::always_inline

[[DTPLAN_AVX2]] inline __m256 f16_load8(const std::uint16_t* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
[[DTPLAN_AVX2]] inline __m128i f16_narrow8(__m256 v) {
  return _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
[[DTPLAN_AVX2]] inline __m256 f16_round8(__m256 v) { return _mm256_cvtph_ps(f16_narrow8(v)); }
template <bool kScale>
[[DTPLAN_AVX2]] inline __m256 f16_read8(const std::uint16_t* p, __m256 scale) {
  if constexpr (kScale) {
    return f16_round8(_mm256_mul_ps(f16_load8(p), scale));
  } else {
    return f16_load8(p);
  }
}

// The ops on eight lanes, with the scalar ops' semantics (max/min ignore a NaN operand).
template <class Op>
struct Lanes8;
template <>
struct Lanes8<Sum> {
  [[DTPLAN_AVX2]] static __m256 apply(__m256 a, __m256 b) { return _mm256_add_ps(a, b); }
};
// b where b compares kCmp to a or a is NaN, else a.
template <int kCmp>
[[DTPLAN_AVX2]] inline __m256 take_unless_nan(__m256 a, __m256 b) {
  const __m256 take_b = _mm256_or_ps(_mm256_cmp_ps(b, a, kCmp), _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
  return _mm256_blendv_ps(a, b, take_b);
}
template <>
struct Lanes8<Max> {
  [[DTPLAN_AVX2]] static __m256 apply(__m256 a, __m256 b) {
    return take_unless_nan<_CMP_GT_OQ>(a, b);
  }
};
template <>
struct Lanes8<Min> {
  [[DTPLAN_AVX2]] static __m256 apply(__m256 a, __m256 b) {
    return take_unless_nan<_CMP_LT_OQ>(a, b);
  }
};

template <class A, class Op, bool kScale, class... P>
[[gnu::target("avx2,f16c")]] void fold_avx2(typename A::S* acc, std::int64_t n, typename A::C scale,
                                            const P*... xs) {
  std::int64_t i = 0;
  if constexpr (std::is_same_v<A, F16>) {
    const __m256 s = _mm256_set1_ps(scale);
    for (; i + 8 <= n; i += 8) {
      __m256 a = f16_load8(acc + i);
      ((a = f16_round8(Lanes8<Op>::apply(a, f16_read8<kScale>(xs + i, s)))), ...);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(acc + i), f16_narrow8(a));
    }
  }
  fold_body<A, Op, kScale>(acc + i, n - i, scale, (xs + i)...);
}

template <class A, class Op, bool kScaleA, bool kScaleB>
[[gnu::target("avx2,f16c")]] void combine_avx2(typename A::S* dst, const typename A::S* a,
                                               const typename A::S* b, std::int64_t n,
                                               typename A::C scale) {
  std::int64_t i = 0;
  if constexpr (std::is_same_v<A, F16>) {
    const __m256 s = _mm256_set1_ps(scale);
    for (; i + 8 <= n; i += 8) {
      const __m256 v =
          Lanes8<Op>::apply(f16_read8<kScaleA>(a + i, s), f16_read8<kScaleB>(b + i, s));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), f16_narrow8(v));
    }
  }
  combine_body<A, Op, kScaleA, kScaleB>(dst + i, a + i, b + i, n - i, scale);
}

#undef DTPLAN_AVX2

}  // namespace dtplan::sim::kernels

#endif
