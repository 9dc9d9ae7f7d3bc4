#include "layout/int_tensor.h"

#include <cassert>

namespace dtplan::layout {

namespace {
std::int64_t row_length(const IntTensor& t) {
  std::int64_t n = 1;
  for (std::size_t d = 1; d < t.shape.size(); ++d) n *= t.shape[d];
  return n;
}

void append(const IntTensor& t, std::size_t dim, std::size_t& next, std::string& out) {
  if (dim == t.shape.size()) {
    out += std::to_string(t.values[next++]);
    return;
  }
  out += '[';
  for (std::int64_t i = 0; i < t.shape[dim]; ++i) {
    if (i > 0) out += ',';
    append(t, dim + 1, next, out);
  }
  out += ']';
}
}  // namespace

std::int64_t rows(const IntTensor& t) { return t.shape.empty() ? 1 : t.shape[0]; }

std::span<const std::int64_t> row(const IntTensor& t, std::int64_t i) {
  assert(i >= 0 && i < rows(t));
  std::int64_t n = row_length(t);
  return std::span<const std::int64_t>(t.values).subspan(static_cast<std::size_t>(i * n),
                                                         static_cast<std::size_t>(n));
}

std::vector<std::vector<std::int64_t>> to_rows(const IntTensor& t) {
  std::vector<std::vector<std::int64_t>> out;
  for (std::int64_t i = 0; i < rows(t); ++i) {
    auto r = row(t, i);
    out.emplace_back(r.begin(), r.end());
  }
  return out;
}

std::string to_string(const IntTensor& t) {
  std::string out;
  std::size_t next = 0;
  append(t, 0, next, out);
  return out;
}

}  // namespace dtplan::layout
