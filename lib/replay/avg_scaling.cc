#include "replay/avg_scaling.h"

#include <cassert>

#include "sim/half_float.h"

namespace dtplan::replay {

namespace {

using core::DType;

template <class T>
void scale_plain(std::span<T> values, T scale) {
  for (T& v : values) v = v * scale;
}

template <std::uint16_t (*kNarrow)(float), float (*kWiden)(std::uint16_t)>
void scale_half(std::span<std::uint16_t> values, std::int64_t n) {
  const float scale = kWiden(kNarrow(static_cast<float>(1.0 / static_cast<double>(n))));
  for (std::uint16_t& v : values) v = kNarrow(kWiden(v) * scale);
}

template <class T>
void divide_plain(std::span<T> values, std::int64_t n) {
  for (T& v : values) v = static_cast<T>(v / static_cast<T>(n));
}

}  // namespace

bool avg_premultiplies(core::DType dtype) {
  return dtype == DType::kF32 || dtype == DType::kF64 || dtype == DType::kBF16 ||
         dtype == DType::kF16 || dtype == DType::kC64;
}

core::Result<sim::Tensor> premultiplied(const sim::Tensor& input, std::int64_t n) {
  assert(input.has_data() && avg_premultiplies(input.dtype()) && n >= 1);
  DTPLAN_TRY(sim::Tensor out, sim::Tensor::uninitialized(input.dtype(), input.shape()));
  std::copy(input.data(), input.data() + input.nbytes(), out.data());
  const double inverse = 1.0 / static_cast<double>(n);
  switch (input.dtype()) {
    case DType::kF32:
      scale_plain(out.values<float>(), static_cast<float>(inverse));
      break;
    case DType::kC64:  // both parts of every element, as f32
      scale_plain(std::span<float>(reinterpret_cast<float*>(out.data()),
                                   static_cast<std::size_t>(2 * out.numel())),
                  static_cast<float>(inverse));
      break;
    case DType::kF64:
      scale_plain(out.values<double>(), inverse);
      break;
    case DType::kBF16:
      scale_half<sim::f32_to_bf16, sim::bf16_to_f32>(out.values<std::uint16_t>(), n);
      break;
    case DType::kF16:
      scale_half<sim::f32_to_f16, sim::f16_to_f32>(out.values<std::uint16_t>(), n);
      break;
    default:
      assert(false && "premultiplied: not a floating dtype");
  }
  return out;
}

void divide_in_place(sim::Tensor& sum, std::int64_t n) {
  assert(sum.has_data() && n >= 1);
  if (sum.dtype() == DType::kI32) {
    divide_plain(sum.values<std::int32_t>(), n);
  } else {
    assert(sum.dtype() == DType::kI64);
    divide_plain(sum.values<std::int64_t>(), n);
  }
}

}  // namespace dtplan::replay
