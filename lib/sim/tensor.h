#pragma once
// Tensor: the local value one simulated rank holds: a dtype, a shape and the elements as
// contiguous row-major bytes (bf16/f16 stored as their uint16 bit patterns). A tensor may be
// shape-only (no bytes): the fake process group's cost-only mode and every local op accept those
// and produce shape-only results, so one executor drives both modes.
//
//   auto t = Tensor::from_values<float>({2, 3}, std::vector<float>{0, 1, 2, 3, 4, 5}).value();
//   t.numel() == 6; t.values<float>()[4] == 4.0f;
//   Tensor::shape_only(core::DType::kBF16, {1 << 20}).value().has_data() == false
//
// Storage comes from storage_cache.h (64-byte aligned, cached for reuse), uninitialised from
// `uninitialized` (the collectives overwrite it entirely), zero-filled from `zeros`. Copies are
// deep; moves are free.

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "core/dtype.h"
#include "core/result.h"
#include "sim/storage_cache.h"

namespace dtplan::sim {

using Shape = std::vector<std::int64_t>;

// "[2,3]"; "[]" for a 0-d tensor.
std::string shape_string(const Shape& shape);

// Product of the sizes (1 for a 0-d shape). Errors (kBadInput, naming `what`) for a negative size
// or an element count whose bytes overflow int64.
core::Result<std::int64_t> checked_numel(const Shape& shape, core::DType dtype,
                                         std::string_view what);

class Tensor {
 public:
  // A 0-element 1-d f32 tensor without data.
  Tensor() = default;

  // Zero-filled. Errors: bad shape (see checked_numel), or kUnsupported when it cannot be
  // allocated.
  static core::Result<Tensor> zeros(core::DType dtype, Shape shape);
  // Contents unspecified (every element is meant to be overwritten). Same errors as zeros().
  static core::Result<Tensor> uninitialized(core::DType dtype, Shape shape);
  // No storage: only dtype and shape. Errors as checked_numel.
  static core::Result<Tensor> shape_only(core::DType dtype, Shape shape);
  // Copies `values` (whose element type must match the dtype's width: float for f32, uint16 bit
  // patterns for bf16/f16, ...). Error (kBadInput) when the counts differ.
  template <class T>
  static core::Result<Tensor> from_values(core::DType dtype, Shape shape,
                                          std::span<const T> values);
  template <class T>
  static core::Result<Tensor> from_values(Shape shape, const std::vector<T>& values);

  [[nodiscard]] core::DType dtype() const { return dtype_; }
  [[nodiscard]] const Shape& shape() const { return shape_; }
  [[nodiscard]] std::int64_t rank() const { return static_cast<std::int64_t>(shape_.size()); }
  [[nodiscard]] std::int64_t numel() const { return numel_; }
  [[nodiscard]] std::int64_t element_bytes() const { return core::dtype_bytes(dtype_); }
  [[nodiscard]] std::int64_t nbytes() const { return numel_ * element_bytes(); }
  [[nodiscard]] bool has_data() const { return data_ != nullptr; }

  // @pre has_data().
  [[nodiscard]] std::byte* data() { return data_.get(); }
  [[nodiscard]] const std::byte* data() const { return data_.get(); }

  // Typed view. @pre has_data() and sizeof(T) == element_bytes().
  template <class T>
  [[nodiscard]] std::span<T> values() {
    assert(has_data() && sizeof(T) == static_cast<std::size_t>(element_bytes()));
    return {reinterpret_cast<T*>(data_.get()), static_cast<std::size_t>(numel_)};
  }
  template <class T>
  [[nodiscard]] std::span<const T> values() const {
    assert(has_data() && sizeof(T) == static_cast<std::size_t>(element_bytes()));
    return {reinterpret_cast<const T*>(data_.get()), static_cast<std::size_t>(numel_)};
  }

  // The same elements under another shape with the same element count (no copy).
  // Error (kBadInput) when the counts differ or the shape is invalid.
  core::Result<Tensor> reshaped(Shape shape) &&;
  // A shape-only tensor with this dtype and shape (drops the bytes).
  [[nodiscard]] Tensor without_data() const;

  Tensor(const Tensor& other);
  Tensor& operator=(const Tensor& other);
  Tensor(Tensor&&) noexcept = default;
  Tensor& operator=(Tensor&&) noexcept = default;
  ~Tensor() = default;

  // Same dtype, shape, data presence and identical bytes (bitwise: NaNs with equal bits are
  // equal, +0 and -0 differ).
  bool operator==(const Tensor& other) const;

 private:
  Tensor(core::DType dtype, Shape shape, std::int64_t numel, StorageBlock data)
      : dtype_(dtype), shape_(std::move(shape)), numel_(numel), data_(std::move(data)) {}

  core::DType dtype_ = core::DType::kF32;
  Shape shape_ = {0};
  std::int64_t numel_ = 0;
  StorageBlock data_;  // null iff shape-only (at least 1 byte otherwise)
};

// "f32[2,3]" (with " (shape only)" when it has no data), for messages.
std::string describe(const Tensor& tensor);

template <class T>
core::Result<Tensor> Tensor::from_values(core::DType dtype, Shape shape,
                                         std::span<const T> values) {
  if (static_cast<int>(sizeof(T)) != core::dtype_bytes(dtype)) {
    return core::Error::bad_input("tensor values: element width " + std::to_string(sizeof(T)) +
                                  " does not match dtype " + std::string(core::dtype_name(dtype)));
  }
  DTPLAN_TRY(Tensor t, uninitialized(dtype, std::move(shape)));
  if (static_cast<std::int64_t>(values.size()) != t.numel()) {
    return core::Error::bad_input("tensor values: " + std::to_string(values.size()) +
                                  " values for shape " + shape_string(t.shape()));
  }
  std::copy(values.begin(), values.end(), t.values<T>().begin());
  return t;
}

// Default dtypes of the element types: float f32, double f64, int32 i32, int64 i64.
template <class T>
core::Result<Tensor> Tensor::from_values(Shape shape, const std::vector<T>& values) {
  constexpr core::DType dtype = std::is_same_v<T, float>          ? core::DType::kF32
                                : std::is_same_v<T, double>       ? core::DType::kF64
                                : std::is_same_v<T, std::int32_t> ? core::DType::kI32
                                                                  : core::DType::kI64;
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> ||
                std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>);
  return from_values<T>(dtype, std::move(shape), std::span<const T>(values));
}

}  // namespace dtplan::sim
