#include "solve/lp/matrix_classes.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "solve/lp/min_kernels.h"

namespace dtplan::solve::detail {

namespace {

std::uint64_t bits_of(double x) {
  std::uint64_t b = 0;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

std::uint64_t mix(std::uint64_t h, std::uint64_t x) {
  h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

// Numbers items 0 .. n - 1 by class, first seen first: `hash[i]` is item i's hash, `same(i, j)`
// whether items i and j are alike. Returns the class count; `first` gets each class's first item.
template <typename Same>
std::size_t classify(const std::vector<std::uint64_t>& hash, Same same,
                     std::vector<std::int32_t>& out, std::vector<std::size_t>& first) {
  out.assign(hash.size(), -1);
  first.clear();
  std::unordered_map<std::uint64_t, std::vector<std::int32_t>> by_hash;
  for (std::size_t i = 0; i < hash.size(); ++i) {
    std::vector<std::int32_t>& candidates = by_hash[hash[i]];
    for (std::int32_t c : candidates) {
      if (same(first[static_cast<std::size_t>(c)], i)) {
        out[i] = c;
        break;
      }
    }
    if (out[i] >= 0) continue;
    out[i] = static_cast<std::int32_t>(first.size());
    candidates.push_back(out[i]);
    first.push_back(i);
  }
  return first.size();
}

}  // namespace

MatrixClasses matrix_classes(const double* m, std::size_t rows, std::size_t cols) {
  MatrixClasses out;
  std::vector<std::uint64_t> row_hash(rows, 0);
  std::vector<std::uint64_t> col_hash(cols, 0);
  for (std::size_t a = 0; a < rows; ++a) {
    for (std::size_t b = 0; b < cols; ++b) {
      const std::uint64_t x = bits_of(m[a * cols + b]);
      row_hash[a] = mix(row_hash[a], x);
      col_hash[b] = mix(col_hash[b], x);
    }
  }
  std::vector<std::size_t> first_row;
  out.rows = classify(
      row_hash,
      [&](std::size_t i, std::size_t j) {
        return std::memcmp(m + i * cols, m + j * cols, cols * sizeof(double)) == 0;
      },
      out.row_class, first_row);
  std::vector<std::size_t> first_col;
  out.cols = classify(
      col_hash,
      [&](std::size_t i, std::size_t j) {
        for (std::size_t a = 0; a < rows; ++a) {
          if (bits_of(m[a * cols + i]) != bits_of(m[a * cols + j])) return false;
        }
        return true;
      },
      out.col_class, first_col);
  out.values.reserve(out.rows * out.cols);
  for (std::size_t r : first_row) {
    for (std::size_t c : first_col) out.values.push_back(m[r * cols + c]);
  }
  return out;
}

namespace {

// Per class of `other` (the other end's labels): its largest w among live labels.
void class_shifts(const std::vector<std::int32_t>& other, std::size_t classes, const double* w,
                  const char* live, ClassScratch& s) {
  s.w.assign(classes, -std::numeric_limits<double>::infinity());
  s.live.assign(classes, 0);
  for (std::size_t b = 0; b < other.size(); ++b) {
    if (live[b] == 0) continue;
    const auto c = static_cast<std::size_t>(other[b]);
    s.w[c] = s.live[c] != 0 ? std::max(s.w[c], w[b]) : w[b];
    s.live[c] = 1;
  }
}

void spread(const std::vector<std::int32_t>& mine, const ClassScratch& s,
            std::vector<double>& out) {
  out.resize(mine.size());
  for (std::size_t a = 0; a < mine.size(); ++a) out[a] = s.mins[static_cast<std::size_t>(mine[a])];
}

}  // namespace

void row_minima_by_class(const MatrixClasses& k, const double* w, const char* live,
                         std::vector<double>& out, ClassScratch& scratch) {
  // A dead class keeps w = -inf: its entries less it are +inf and never win.
  class_shifts(k.col_class, k.cols, w, live, scratch);
  scratch.mins.resize(k.rows);
  row_minima_less(k.values.data(), scratch.w.data(), k.rows, k.cols, scratch.mins.data());
  spread(k.row_class, scratch, out);
}

void column_minima_by_class(const MatrixClasses& k, const double* w, const char* live,
                            std::vector<double>& out, ClassScratch& scratch) {
  class_shifts(k.row_class, k.rows, w, live, scratch);
  scratch.mins.resize(k.cols);
  column_minima_less(k.values.data(), scratch.w.data(), scratch.live.data(), k.rows, k.cols,
                     scratch.mins.data());
  spread(k.col_class, scratch, out);
}

}  // namespace dtplan::solve::detail
