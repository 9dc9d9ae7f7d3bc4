#pragma once
// Internal to lib/solve: the distinct rows and columns of an edge matrix, and the matrix of those
// alone. An edge's cost depends on the producer's output placement and the consumer's input
// placement only, so strategies that share one share a row (or a column): the LP bound's kernels
// (dual_bound.h) take their minima over the distinct ones (LLaMA3-70B on 4x4x64: 30% fewer
// entries per pass).
//
// Why the minima are the same, bit for bit: for rows a of one class, m[a][b] is one value x, and
// min over a of (x - w[a]) == x - max over a of w[a], since rounding a difference is monotone in
// what is subtracted; so row_minima(m, w) over the columns of a class is the compressed matrix's
// minimum less the class's largest w. Rows and columns are alike when their entries are
// bitwise equal.
//
// Example: m = {1, 1, 5,
//               1, 1, 5,
//               2, 2, 0}: rows {0, 0, 1}, columns {0, 0, 1}, values {1, 5,
//                                                                    2, 0}.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dtplan::solve::detail {

struct MatrixClasses {
  std::size_t rows = 0;  // distinct rows
  std::size_t cols = 0;  // distinct columns
  // Per row (column) of the matrix, its class: classes are numbered in order of first row
  // (column).
  std::vector<std::int32_t> row_class;
  std::vector<std::int32_t> col_class;
  std::vector<double> values;  // rows x cols, row-major: each class's first row and column
};

// The classes of the row-major `rows` x `cols` matrix `m`.
MatrixClasses matrix_classes(const double* m, std::size_t rows, std::size_t cols);

// Buffers for the functions below (reused: no allocation once grown).
struct ClassScratch {
  std::vector<double> w;     // per class of the other end: its largest w over live labels
  std::vector<char> live;    // ... whether it has a live label
  std::vector<double> mins;  // per class of this end: its minimum
};

// The minima of the matrix `k` was made from, read through its classes (min_kernels.h's, with
// the live labels of the other end given): out[a] = min over the columns b with live[b] of
// (m[a][b] - w[b]), one per row (+inf where none is live).
void row_minima_by_class(const MatrixClasses& k, const double* w, const char* live,
                         std::vector<double>& out, ClassScratch& scratch);

// out[b] = min over the rows a with live[a] of (m[a][b] - w[a]), one per column.
void column_minima_by_class(const MatrixClasses& k, const double* w, const char* live,
                            std::vector<double>& out, ClassScratch& scratch);

}  // namespace dtplan::solve::detail
