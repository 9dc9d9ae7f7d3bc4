#pragma once
// Checked 64-bit arithmetic for sizes, byte counts and rank counts: overflow is an input error
// that names what was being computed, never a silent wrap.

#include <cstdint>
#include <span>
#include <string_view>

#include "core/result.h"

namespace dtplan::core {

// a * b. Example: checked_mul(1 << 20, 1 << 20, "tensor numel") == 1 << 40.
// @post error (kBadInput, naming `what`) iff the product does not fit in int64.
Result<std::int64_t> checked_mul(std::int64_t a, std::int64_t b, std::string_view what);

// a + b, with the same contract as checked_mul.
Result<std::int64_t> checked_add(std::int64_t a, std::int64_t b, std::string_view what);

// Product of all values (1 for an empty span). Example: checked_product({2,3,4}, "numel") == 24.
// A zero anywhere gives 0, however large the others: checked_product({1 << 62, 8, 0}, "n") == 0.
Result<std::int64_t> checked_product(std::span<const std::int64_t> values, std::string_view what);

}  // namespace dtplan::core
