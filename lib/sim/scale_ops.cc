#include "sim/scale_ops.h"

#include <string>

#include "sim/half_float.h"

namespace dtplan::sim {

namespace {

// Whether divide() accepts tensors of `dtype`: f32, f64, bf16, f16.
bool divisible_dtype(core::DType dtype) {
  return dtype == core::DType::kF32 || dtype == core::DType::kF64 || dtype == core::DType::kBF16 ||
         dtype == core::DType::kF16;
}

}  // namespace

core::Status divide(Tensor& t, std::int64_t n) {
  if (n < 1) {
    return core::Error::bad_input("divide: divisor " + std::to_string(n) + " is not positive for " +
                                  describe(t));
  }
  if (!divisible_dtype(t.dtype())) {
    return core::Error::unsupported(
        "divide: " + describe(t) +
        " cannot be divided in its dtype (PyTorch's division would return a float tensor)");
  }
  if (n == 1 || !t.has_data()) return {};
  switch (t.dtype()) {
    case core::DType::kF32: {
      const auto d = static_cast<float>(n);
      for (float& x : t.values<float>()) x /= d;
      break;
    }
    case core::DType::kF64: {
      const auto d = static_cast<double>(n);
      for (double& x : t.values<double>()) x /= d;
      break;
    }
    case core::DType::kBF16: {
      const auto d = static_cast<float>(n);
      for (std::uint16_t& x : t.values<std::uint16_t>()) x = f32_to_bf16(bf16_to_f32(x) / d);
      break;
    }
    case core::DType::kF16: {
      const auto d = static_cast<float>(n);
      for (std::uint16_t& x : t.values<std::uint16_t>()) x = f32_to_f16(f16_to_f32(x) / d);
      break;
    }
    default:
      break;
  }
  return {};
}

}  // namespace dtplan::sim
