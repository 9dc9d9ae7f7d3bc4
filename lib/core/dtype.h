#pragma once
// Element data types of tensors: names in PyTorch spelling, byte widths, parsing.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace dtplan::core {

enum class DType : std::uint8_t {
  kF32,
  kBF16,
  kF16,
  kF64,
  kI32,
  kI64,
  kI8,
  kU8,
  kBool,
  kF8E4M3,
  kC64
};

// Bytes per element. Example: dtype_bytes(DType::kBF16) == 2.
int dtype_bytes(DType dtype);

// Canonical short name: "f32", "bf16", "f16", "f64", "i32", "i64", "i8", "u8", "bool", "f8e4m3",
// "c64"
// (complex64, as produced by torch.view_as_complex in RoPE).
std::string_view dtype_name(DType dtype);

// Accepts the short names and the PyTorch spellings ("float32", "torch.bfloat16", "float", "half",
// "int64", "long", ...). Errors name `what` and list the accepted names.
Result<DType> parse_dtype(std::string_view text, std::string_view what);

// True for floating-point and complex types (reductions are order-sensitive).
bool is_floating(DType dtype);

}  // namespace dtplan::core
