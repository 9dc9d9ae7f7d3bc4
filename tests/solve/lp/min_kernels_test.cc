// The LP bound's kernels: every build this CPU runs (AVX-512F, AVX2, baseline) gives exactly the
// minima of a plain loop, over sizes that leave every kind of tail, with +inf entries, -inf
// shifts (dead labels) and rows left out.

#include "solve/lp/min_kernels.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace dtplan::solve::detail {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST_CASE("min kernels: the header's example") {
  const std::vector<double> m = {1, 4, 3, 0};
  const std::vector<double> w = {1, 2};
  const std::vector<char> live = {1, 1};
  for (const MinKernels& k : min_kernel_variants()) {
    INFO(k.name);
    std::vector<double> out(2);
    k.rows(m.data(), w.data(), 2, 2, out.data());
    CHECK(out == std::vector<double>{0, -2});
    k.columns(m.data(), w.data(), live.data(), 2, 2, out.data());
    CHECK(out == std::vector<double>{0, -2});
  }
  CHECK(min_kernel_variants().back().bytes == 16);  // the baseline is always there
}

TEST_CASE("min kernels: every build equals the plain loop") {
  std::mt19937_64 rng(7);
  auto value = [&] {
    const std::uint64_t r = rng() % 16;
    return r == 0 ? kInf : static_cast<double>(static_cast<std::int64_t>(rng() % 2001) - 1000) / 8;
  };
  int checked = 0;
  for (std::size_t rows = 0; rows <= 19; ++rows) {
    for (std::size_t cols = 0; cols <= 37; cols += rows % 3 + 1) {
      std::vector<double> m(rows * cols), w_rows(cols), w_cols(rows);
      for (double& x : m) x = value();
      // λ is finite at a live label; a dead label's is -inf in the rows' case.
      auto finite = [&] {
        const double x = value();
        return x == kInf ? 0.5 : x;
      };
      for (double& x : w_rows) x = rng() % 7 == 0 ? -kInf : finite();
      for (double& x : w_cols) x = finite();
      std::vector<char> live(rows);
      for (char& l : live) l = rng() % 5 != 0;
      std::vector<double> row_truth(rows, kInf), col_truth(cols, kInf);
      for (std::size_t a = 0; a < rows; ++a) {
        for (std::size_t b = 0; b < cols; ++b) {
          const double x = m[a * cols + b];
          row_truth[a] = std::min(row_truth[a], x - w_rows[b]);
          if (live[a] != 0) col_truth[b] = std::min(col_truth[b], x - w_cols[a]);
        }
      }
      for (const MinKernels& k : min_kernel_variants()) {
        INFO(k.name << " " << rows << "x" << cols);
        std::vector<double> out(rows, -1);
        k.rows(m.data(), w_rows.data(), rows, cols, out.data());
        CHECK(out == row_truth);
        out.assign(cols, -1);
        k.columns(m.data(), w_cols.data(), live.data(), rows, cols, out.data());
        CHECK(out == col_truth);
        ++checked;
      }
    }
  }
  CHECK(checked >= 200);
}

}  // namespace
}  // namespace dtplan::solve::detail
