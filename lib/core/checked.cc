#include "core/checked.h"

#include <algorithm>
#include <string>

namespace dtplan::core {

namespace {
Error overflow(std::string_view what, std::int64_t a, std::int64_t b, char op) {
  return Error::bad_input(std::string(what) + ": " + std::to_string(a) + " " + op + " " +
                          std::to_string(b) + " overflows 64-bit integers");
}
}  // namespace

Result<std::int64_t> checked_mul(std::int64_t a, std::int64_t b, std::string_view what) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return overflow(what, a, b, '*');
  return out;
}

Result<std::int64_t> checked_add(std::int64_t a, std::int64_t b, std::string_view what) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return overflow(what, a, b, '+');
  return out;
}

Result<std::int64_t> checked_product(std::span<const std::int64_t> values, std::string_view what) {
  // A zero anywhere makes the product zero, however large the other values are.
  if (std::find(values.begin(), values.end(), 0) != values.end()) return 0;
  std::int64_t out = 1;
  for (std::int64_t v : values) {
    DTPLAN_TRY(out, checked_mul(out, v, what));
  }
  return out;
}

}  // namespace dtplan::core
