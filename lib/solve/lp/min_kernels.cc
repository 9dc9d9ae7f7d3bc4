#include "solve/lp/min_kernels.h"

#include <cstring>
#include <limits>
#include <vector>

namespace dtplan::solve::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

using V2 = double __attribute__((vector_size(16)));
using V4 = double __attribute__((vector_size(32)));
using V8 = double __attribute__((vector_size(64)));

// The loops for the vector type V; always inlined into a function built for the matching
// instruction set, where the compiler lowers the generic vector operations to it. (Vectors are
// neither passed nor returned: that would change the calling convention between the variants.)
template <typename V>
struct Loops {
  static constexpr std::size_t kLanes = sizeof(V) / sizeof(double);

  // Two accumulators: a minimum's dependency chain would otherwise bound the loop.
  [[gnu::always_inline]] static double min_difference(const double* x, const double* y,
                                                      std::size_t n) {
    const V none = V{} + kInf;
    V m0 = none;
    V m1 = none;
    V x0, x1, y0, y1;
    std::size_t b = 0;
    for (; b + 2 * kLanes <= n; b += 2 * kLanes) {
      std::memcpy(&x0, x + b, sizeof x0);
      std::memcpy(&x1, x + b + kLanes, sizeof x1);
      std::memcpy(&y0, y + b, sizeof y0);
      std::memcpy(&y1, y + b + kLanes, sizeof y1);
      const V d0 = x0 - y0;
      const V d1 = x1 - y1;
      m0 = d0 < m0 ? d0 : m0;
      m1 = d1 < m1 ? d1 : m1;
    }
    for (; b + kLanes <= n; b += kLanes) {
      std::memcpy(&x0, x + b, sizeof x0);
      std::memcpy(&y0, y + b, sizeof y0);
      const V d0 = x0 - y0;
      m0 = d0 < m0 ? d0 : m0;
    }
    m0 = m1 < m0 ? m1 : m0;
    double m = kInf;
    for (std::size_t i = 0; i < kLanes; ++i) m = m0[i] < m ? m0[i] : m;
    for (; b < n; ++b) m = x[b] - y[b] < m ? x[b] - y[b] : m;
    return m;
  }

  [[gnu::always_inline]] static void rows(const double* m, const double* w, std::size_t rows,
                                          std::size_t cols, double* out) {
    for (std::size_t a = 0; a < rows; ++a) out[a] = min_difference(m + a * cols, w, cols);
  }

  [[gnu::always_inline]] static void columns(const double* m, const double* w, const char* live,
                                             std::size_t rows, std::size_t cols, double* out) {
    for (std::size_t b = 0; b < cols; ++b) out[b] = kInf;
    V d, o;
    for (std::size_t a = 0; a < rows; ++a) {
      if (live[a] == 0) continue;
      const double* row = m + a * cols;
      const V shift = V{} + w[a];
      std::size_t b = 0;
      for (; b + kLanes <= cols; b += kLanes) {
        std::memcpy(&d, row + b, sizeof d);
        std::memcpy(&o, out + b, sizeof o);
        d -= shift;
        o = d < o ? d : o;
        std::memcpy(out + b, &o, sizeof o);
      }
      for (; b < cols; ++b) out[b] = row[b] - w[a] < out[b] ? row[b] - w[a] : out[b];
    }
  }
};

// rows_<name> and columns_<name>: the loops for vector type V, built with the attributes ATTR.
#define DTPLAN_MIN_KERNELS(name, V, ATTR)                                                     \
  ATTR void rows_##name(const double* m, const double* w, std::size_t r, std::size_t c,       \
                        double* out) {                                                        \
    Loops<V>::rows(m, w, r, c, out);                                                          \
  }                                                                                           \
  ATTR void columns_##name(const double* m, const double* w, const char* live, std::size_t r, \
                           std::size_t c, double* out) {                                      \
    Loops<V>::columns(m, w, live, r, c, out);                                                 \
  }

DTPLAN_MIN_KERNELS(base, V2, )
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
DTPLAN_MIN_KERNELS(avx2, V4, [[gnu::target("avx2")]])
DTPLAN_MIN_KERNELS(avx512, V8, [[gnu::target("avx512f")]])
#endif
#undef DTPLAN_MIN_KERNELS

std::vector<MinKernels> supported() {
  std::vector<MinKernels> out;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    out.push_back({"avx512f", 64, rows_avx512, columns_avx512});
  if (__builtin_cpu_supports("avx2")) out.push_back({"avx2", 32, rows_avx2, columns_avx2});
#endif
  out.push_back({"baseline", 16, rows_base, columns_base});
  return out;
}

}  // namespace

const std::vector<MinKernels>& min_kernel_variants() {
  static const std::vector<MinKernels> variants = supported();
  return variants;
}

void row_minima_less(const double* m, const double* w, std::size_t rows, std::size_t cols,
                     double* out) {
  min_kernel_variants().front().rows(m, w, rows, cols, out);
}

void column_minima_less(const double* m, const double* w, const char* live, std::size_t rows,
                        std::size_t cols, double* out) {
  min_kernel_variants().front().columns(m, w, live, rows, cols, out);
}

}  // namespace dtplan::solve::detail
