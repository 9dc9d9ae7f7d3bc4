// Matrix classes: the header's example, the classes of random matrices built from a few distinct
// rows and columns (against a plain comparison), the minima read through them equal the kernels'
// on the whole matrix bit for bit (with +inf entries, dead labels and whole dead classes), and an
// LP bound on a chain whose matrices are classified reaches the chain's optimum.

#include "solve/lp/matrix_classes.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "solve/lp/dual_bound.h"
#include "solve/lp/min_kernels.h"

namespace dtplan::solve::detail {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST_CASE("matrix classes: the header's example") {
  const std::vector<double> m = {1, 1, 5, 1, 1, 5, 2, 2, 0};
  const MatrixClasses k = matrix_classes(m.data(), 3, 3);
  CHECK(k.rows == 2);
  CHECK(k.cols == 2);
  CHECK(k.row_class == std::vector<std::int32_t>{0, 0, 1});
  CHECK(k.col_class == std::vector<std::int32_t>{0, 0, 1});
  CHECK(k.values == std::vector<double>{1, 5, 2, 0});
}

// A rows x cols matrix whose rows copy `row_kinds` patterns and columns `col_kinds` (entries
// drawn per pattern pair, some +inf), as a model's edges repeat placements.
std::vector<double> patterned(std::mt19937_64& rng, std::size_t rows, std::size_t cols,
                              std::size_t row_kinds, std::size_t col_kinds,
                              std::vector<std::size_t>& row_of, std::vector<std::size_t>& col_of) {
  std::vector<double> base(row_kinds * col_kinds);
  for (double& x : base) {
    x = rng() % 5 == 0 ? kInf : static_cast<double>(rng() % 1000) / 7;
  }
  row_of.resize(rows);
  col_of.resize(cols);
  for (std::size_t& r : row_of) r = rng() % row_kinds;
  for (std::size_t& c : col_of) c = rng() % col_kinds;
  std::vector<double> m(rows * cols);
  for (std::size_t a = 0; a < rows; ++a) {
    for (std::size_t b = 0; b < cols; ++b)
      m[a * cols + b] = base[row_of[a] * col_kinds + col_of[b]];
  }
  return m;
}

// A random patterned matrix of up to `size` rows and columns and `kinds` patterns, and its
// classes.
struct Case {
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::vector<std::size_t> row_of;
  std::vector<std::size_t> col_of;
  std::vector<double> m;
  MatrixClasses k;
};

Case random_case(std::mt19937_64& rng, std::size_t size, std::size_t kinds) {
  Case c;
  c.rows = 1 + rng() % size;
  c.cols = 1 + rng() % size;
  c.m = patterned(rng, c.rows, c.cols, 1 + rng() % kinds, 1 + rng() % kinds, c.row_of, c.col_of);
  c.k = matrix_classes(c.m.data(), c.rows, c.cols);
  return c;
}

TEST_CASE("matrix classes: random patterned matrices") {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 60; ++trial) {
    const auto& [rows, cols, row_of, col_of, m, k] = random_case(rng, 40, 6);
    INFO("trial " << trial << ": " << rows << "x" << cols);
    REQUIRE(k.row_class.size() == rows);
    REQUIRE(k.col_class.size() == cols);
    REQUIRE(k.values.size() == k.rows * k.cols);
    // Every entry is its classes' value; rows (columns) share a class exactly when equal; classes
    // are numbered by first row (column).
    for (std::size_t a = 0; a < rows; ++a) {
      for (std::size_t b = 0; b < cols; ++b) {
        CHECK(
            same_bits(m[a * cols + b], k.values[static_cast<std::size_t>(k.row_class[a]) * k.cols +
                                                static_cast<std::size_t>(k.col_class[b])]));
      }
    }
    std::int32_t next = 0;
    for (std::size_t a = 0; a < rows; ++a) {
      if (k.row_class[a] == next) ++next;
      CHECK(k.row_class[a] < next);
      for (std::size_t a2 = 0; a2 < a; ++a2) {
        const bool equal = std::memcmp(&m[a * cols], &m[a2 * cols], cols * sizeof(double)) == 0;
        CHECK(equal == (k.row_class[a] == k.row_class[a2]));
      }
    }
    CHECK(static_cast<std::size_t>(next) == k.rows);
    next = 0;
    for (std::size_t b = 0; b < cols; ++b) {
      if (k.col_class[b] == next) ++next;
      CHECK(k.col_class[b] < next);
      for (std::size_t b2 = 0; b2 < b; ++b2) {
        bool equal = true;
        for (std::size_t a = 0; a < rows; ++a) equal = equal && m[a * cols + b] == m[a * cols + b2];
        CHECK(equal == (k.col_class[b] == k.col_class[b2]));
      }
    }
    CHECK(static_cast<std::size_t>(next) == k.cols);
  }
}

TEST_CASE("matrix classes: minima by class equal the kernels' on the whole matrix") {
  std::mt19937_64 rng(5);
  ClassScratch scratch;
  int checked = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const auto& [rows, cols, row_of, col_of, m, k] = random_case(rng, 30, 5);
    // λ: finite, with repeats inside a class (ties); some labels dead, sometimes a whole class.
    auto lambda = [&](std::size_t n) {
      std::vector<double> w(n);
      for (double& x : w) x = static_cast<double>(static_cast<std::int64_t>(rng() % 41) - 20) / 3;
      return w;
    };
    auto liveness = [&](std::size_t n, const std::vector<std::size_t>& kind) {
      std::vector<char> live(n);
      const std::size_t dead_kind = rng() % 6;
      for (std::size_t i = 0; i < n; ++i) live[i] = rng() % 4 != 0 && kind[i] != dead_kind;
      return live;
    };
    const auto w_cols = lambda(cols);
    const auto live_cols = liveness(cols, col_of);
    const auto w_rows = lambda(rows);
    const auto live_rows = liveness(rows, row_of);
    // The kernels on the whole matrix, as the LP bound calls them (dead columns at -inf).
    std::vector<double> masked(cols);
    for (std::size_t b = 0; b < cols; ++b) masked[b] = live_cols[b] ? w_cols[b] : -kInf;
    std::vector<double> want_rows(rows), want_cols(cols), got;
    row_minima_less(m.data(), masked.data(), rows, cols, want_rows.data());
    column_minima_less(m.data(), w_rows.data(), live_rows.data(), rows, cols, want_cols.data());
    INFO("trial " << trial << ": " << rows << "x" << cols);
    row_minima_by_class(k, w_cols.data(), live_cols.data(), got, scratch);
    REQUIRE(got.size() == rows);
    for (std::size_t a = 0; a < rows; ++a) CHECK(got[a] == want_rows[a]);
    column_minima_by_class(k, w_rows.data(), live_rows.data(), got, scratch);
    REQUIRE(got.size() == cols);
    for (std::size_t b = 0; b < cols; ++b) CHECK(got[b] == want_cols[b]);
    ++checked;
  }
  CHECK(checked == 200);
}

TEST_CASE("matrix classes: the LP bound of a chain with classified matrices is its optimum") {
  // A chain a - b - c of 24-label nodes (576-entry matrices, classified: 4 kinds of rows and of
  // columns); on a tree the LP is exact, so the bound equals the brute-force optimum.
  std::mt19937_64 rng(3);
  constexpr std::size_t kLabels = 24;
  Problem p;
  for (int v = 0; v < 3; ++v) {
    Node n;
    n.name = std::string(1, static_cast<char>('a' + v));
    for (std::size_t l = 0; l < kLabels; ++l) n.cost_us.push_back(static_cast<double>(rng() % 50));
    p.nodes.push_back(std::move(n));
  }
  std::vector<std::size_t> row_of, col_of;
  for (int e = 0; e < 2; ++e) {
    auto m = patterned(rng, kLabels, kLabels, 4, 4, row_of, col_of);
    const MatrixClasses k = matrix_classes(m.data(), kLabels, kLabels);
    REQUIRE(4 * (k.rows * k.cols + 2 * kLabels) <= 3 * kLabels * kLabels);
    p.edges.push_back({e, e + 1, 0, Matrix(std::move(m))});
  }
  double best = kInf;
  for (std::size_t x = 0; x < kLabels; ++x) {
    for (std::size_t y = 0; y < kLabels; ++y) {
      for (std::size_t z = 0; z < kLabels; ++z) {
        best = std::min(best, p.nodes[0].cost_us[x] + p.nodes[1].cost_us[y] +
                                  p.nodes[2].cost_us[z] + p.edges[0].cost_us[x * kLabels + y] +
                                  p.edges[1].cost_us[y * kLabels + z]);
      }
    }
  }
  REQUIRE(best < kInf);
  const DualBound d =
      dual_bound(p, {.max_passes = 10, .deadline = Clock::now() + std::chrono::hours(1)});
  CHECK(d.lower_bound_us == doctest::Approx(best).epsilon(1e-12));
  CHECK(d.upper_us == best);
}

}  // namespace
}  // namespace dtplan::solve::detail
