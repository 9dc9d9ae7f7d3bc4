#pragma once
// IntTensor: a dense row-major tensor of integers, what remap_to_tensor returns (rank groups, the
// mesh tensor a rank sees). Example: shape {2,2}, values {0,2,1,3} is [[0,2],[1,3]].

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace dtplan::layout {

struct IntTensor {
  std::vector<std::int64_t> shape;   // empty for a scalar
  std::vector<std::int64_t> values;  // row-major, product(shape) entries
  bool operator==(const IntTensor&) const = default;
};

// Number of entries along dim 0 (1 for a scalar). Example: rows([[0,2],[1,3]]) == 2.
std::int64_t rows(const IntTensor& t);

// The entries of row `i` (all dims but the first, flattened). Example: row([[0,2],[1,3]], 1) ==
// {1,3}. @pre 0 <= i < rows(t).
std::span<const std::int64_t> row(const IntTensor& t, std::int64_t i);

// Every row, flattened. Example: to_rows([[0,2],[1,3]]) == {{0,2},{1,3}}.
std::vector<std::vector<std::int64_t>> to_rows(const IntTensor& t);

// Nested brackets without spaces. Example: "[[[0,4],[1,5]],[[2,6],[3,7]]]"; a scalar prints "5".
std::string to_string(const IntTensor& t);

}  // namespace dtplan::layout
