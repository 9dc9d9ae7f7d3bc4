#include "sim/tensor.h"

#include <cstring>
#include <new>

#include "core/checked.h"

namespace dtplan::sim {

namespace {

// Allocates `bytes` (at least 1, so a data tensor always has a non-null pointer).
core::Result<StorageBlock> allocate(std::int64_t bytes, const Shape& shape) {
  try {
    return allocate_storage(static_cast<std::size_t>(bytes));
  } catch (const std::bad_alloc&) {
    return core::Error::unsupported("tensor " + shape_string(shape) + ": cannot allocate " +
                                    std::to_string(bytes) + " bytes");
  }
}

}  // namespace

std::string shape_string(const Shape& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ",";
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

core::Result<std::int64_t> checked_numel(const Shape& shape, core::DType dtype,
                                         std::string_view what) {
  for (std::int64_t s : shape) {
    if (s < 0) {
      return core::Error::bad_input(std::string(what) + ": shape " + shape_string(shape) +
                                    " has a negative size");
    }
  }
  // The message is built only on failure (tensors are made in the simulator's inner loops).
  auto numel = core::checked_product(shape, "");
  if (numel.ok() && core::checked_mul(*numel, core::dtype_bytes(dtype), "").ok()) return numel;
  std::string context = std::string(what) + ": shape " + shape_string(shape);
  DTPLAN_TRY(std::int64_t n, core::checked_product(shape, context));
  DTPLAN_CHECK(core::checked_mul(n, core::dtype_bytes(dtype), context + " in bytes"));
  return n;
}

core::Result<Tensor> Tensor::zeros(core::DType dtype, Shape shape) {
  DTPLAN_TRY(Tensor t, uninitialized(dtype, std::move(shape)));
  std::memset(t.data_.get(), 0, static_cast<std::size_t>(t.nbytes()));
  return t;
}

core::Result<Tensor> Tensor::uninitialized(core::DType dtype, Shape shape) {
  DTPLAN_TRY(std::int64_t numel, checked_numel(shape, dtype, "tensor"));
  DTPLAN_TRY(auto data, allocate(numel * core::dtype_bytes(dtype), shape));
  return Tensor(dtype, std::move(shape), numel, std::move(data));
}

core::Result<Tensor> Tensor::shape_only(core::DType dtype, Shape shape) {
  DTPLAN_TRY(std::int64_t numel, checked_numel(shape, dtype, "tensor"));
  return Tensor(dtype, std::move(shape), numel, StorageBlock());
}

core::Result<Tensor> Tensor::reshaped(Shape shape) && {
  DTPLAN_TRY(std::int64_t numel, checked_numel(shape, dtype_, "reshape"));
  if (numel != numel_) {
    return core::Error::bad_input("reshape: " + describe(*this) + " has " + std::to_string(numel_) +
                                  " elements, shape " + shape_string(shape) + " has " +
                                  std::to_string(numel));
  }
  shape_ = std::move(shape);
  return std::move(*this);
}

Tensor Tensor::without_data() const { return Tensor(dtype_, shape_, numel_, StorageBlock()); }

Tensor::Tensor(const Tensor& other)
    : dtype_(other.dtype_), shape_(other.shape_), numel_(other.numel_) {
  if (other.data_ != nullptr) {
    data_ = allocate_storage(static_cast<std::size_t>(other.nbytes()));
    std::memcpy(data_.get(), other.data_.get(), static_cast<std::size_t>(other.nbytes()));
  }
}

Tensor& Tensor::operator=(const Tensor& other) {
  if (this != &other) *this = Tensor(other);
  return *this;
}

bool Tensor::operator==(const Tensor& other) const {
  if (dtype_ != other.dtype_ || shape_ != other.shape_ || has_data() != other.has_data()) {
    return false;
  }
  return !has_data() ||
         std::memcmp(data_.get(), other.data_.get(), static_cast<std::size_t>(nbytes())) == 0;
}

std::string describe(const Tensor& tensor) {
  return std::string(core::dtype_name(tensor.dtype())) + shape_string(tensor.shape()) +
         (tensor.has_data() ? "" : " (shape only)");
}

}  // namespace dtplan::sim
