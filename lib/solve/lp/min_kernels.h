#pragma once
// Internal to lib/solve: the LP bound's inner loops (dual_bound.h), the minima of a matrix's
// rows or columns less a vector, built for each vector unit an x86-64 CPU may have (AVX-512F,
// AVX2, else the baseline's SSE2) and chosen once, at the first call, from what the CPU reports.
// The minimum of a set of values does not depend on the order it is taken in, so every variant
// returns the same values (the sign of a zero aside, which no comparison sees). On other
// architectures the portable loop alone is built.
//
// Example: m = {1, 4,
//               3, 0}, w = {1, 2}: row minima {min(0, 2), min(2, -2)} = {0, -2};
// column minima with both rows live {min(0, 1), min(3, -2)} = {0, -2}.

#include <cstddef>
#include <vector>

namespace dtplan::solve::detail {

// out[a] = min_b (m[a * cols + b] - w[b]) for a < rows (+inf when cols is 0).
void row_minima_less(const double* m, const double* w, std::size_t rows, std::size_t cols,
                     double* out);

// out[b] = min over the rows a with live[a] != 0 of (m[a * cols + b] - w[a]), for b < cols
// (+inf where no row is live).
void column_minima_less(const double* m, const double* w, const char* live, std::size_t rows,
                        std::size_t cols, double* out);

// One build of both kernels.
struct MinKernels {
  const char* name;  // "avx512f", "avx2" or "baseline"
  int bytes;         // vector width: 64, 32 or 16
  void (*rows)(const double*, const double*, std::size_t, std::size_t, double*);
  void (*columns)(const double*, const double*, const char*, std::size_t, std::size_t, double*);
};

// The builds this CPU can run, widest first; the functions above call the first.
const std::vector<MinKernels>& min_kernel_variants();

}  // namespace dtplan::solve::detail
