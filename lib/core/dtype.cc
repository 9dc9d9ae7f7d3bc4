#include "core/dtype.h"

#include <array>
#include <utility>

#include "core/strings.h"

namespace dtplan::core {

int dtype_bytes(DType dtype) {
  switch (dtype) {
    case DType::kF64:
    case DType::kI64:
    case DType::kC64:
      return 8;
    case DType::kF32:
    case DType::kI32:
      return 4;
    case DType::kBF16:
    case DType::kF16:
      return 2;
    case DType::kI8:
    case DType::kU8:
    case DType::kBool:
    case DType::kF8E4M3:
      return 1;
  }
  return 1;
}

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return "f32";
    case DType::kBF16:
      return "bf16";
    case DType::kF16:
      return "f16";
    case DType::kF64:
      return "f64";
    case DType::kI32:
      return "i32";
    case DType::kI64:
      return "i64";
    case DType::kI8:
      return "i8";
    case DType::kU8:
      return "u8";
    case DType::kBool:
      return "bool";
    case DType::kF8E4M3:
      return "f8e4m3";
    case DType::kC64:
      return "c64";
  }
  return "?";
}

bool is_floating(DType dtype) {
  return dtype == DType::kF32 || dtype == DType::kBF16 || dtype == DType::kF16 ||
         dtype == DType::kF64 || dtype == DType::kF8E4M3 || dtype == DType::kC64;
}

Result<DType> parse_dtype(std::string_view text, std::string_view what) {
  static const std::array<std::pair<std::string_view, DType>, 30> kNames = {{
      {"f32", DType::kF32},     {"fp32", DType::kF32},      {"float32", DType::kF32},
      {"float", DType::kF32},   {"bf16", DType::kBF16},     {"bfloat16", DType::kBF16},
      {"f16", DType::kF16},     {"fp16", DType::kF16},      {"float16", DType::kF16},
      {"half", DType::kF16},    {"f64", DType::kF64},       {"fp64", DType::kF64},
      {"float64", DType::kF64}, {"double", DType::kF64},    {"i32", DType::kI32},
      {"int32", DType::kI32},   {"int", DType::kI32},       {"i64", DType::kI64},
      {"int64", DType::kI64},   {"long", DType::kI64},      {"i8", DType::kI8},
      {"int8", DType::kI8},     {"u8", DType::kU8},         {"uint8", DType::kU8},
      {"bool", DType::kBool},   {"f8e4m3", DType::kF8E4M3}, {"float8_e4m3fn", DType::kF8E4M3},
      {"c64", DType::kC64},     {"complex64", DType::kC64}, {"cfloat", DType::kC64},
  }};
  std::string_view t = trim(text);
  if (t.starts_with("torch.")) t.remove_prefix(6);
  for (const auto& [name, dtype] : kNames) {
    if (t == name) return dtype;
  }
  return Error::bad_input(std::string(what) + ": unknown dtype '" + std::string(text) +
                          "' (use f32, bf16, f16, f64, i32, i64, i8, u8, bool, f8e4m3 or c64)");
}

}  // namespace dtplan::core
