#include "core/checked.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace dtplan::core {
namespace {

TEST_CASE("checked arithmetic reports overflow instead of wrapping") {
  CHECK(checked_mul(1 << 20, 1 << 20, "numel").value() == (std::int64_t{1} << 40));
  auto big = checked_mul(std::int64_t{1} << 40, std::int64_t{1} << 40, "tensor numel");
  REQUIRE_FALSE(big.ok());
  CHECK(big.error().message.find("tensor numel") == 0);
  CHECK(big.error().message.find("overflows") != std::string::npos);
  CHECK_FALSE(checked_add(std::numeric_limits<std::int64_t>::max(), 1, "bytes").ok());
  CHECK(checked_add(2, 3, "x").value() == 5);
  std::vector<std::int64_t> dims = {2, 3, 4};
  CHECK(checked_product(dims, "numel").value() == 24);
  CHECK(checked_product({}, "numel").value() == 1);
  std::vector<std::int64_t> huge = {1000000, 1000000, 1000000, 1000000};
  CHECK_FALSE(checked_product(huge, "numel").ok());
  // A zero-size dim: the product is 0 even where a running product of the others would overflow.
  std::vector<std::int64_t> zero_last = {std::int64_t{1} << 62, 8, 0};
  CHECK(checked_product(zero_last, "numel").value() == 0);
}

}  // namespace
}  // namespace dtplan::core
