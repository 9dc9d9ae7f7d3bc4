#pragma once
// TensorMeta: the global shape and dtype of one tensor a node produces (fake-tensor metadata in
// FX terms), plus checked element and byte counts.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/result.h"

namespace dtplan::graph {

using Shape = std::vector<std::int64_t>;

struct TensorMeta {
  Shape shape;
  core::DType dtype = core::DType::kF32;

  bool operator==(const TensorMeta&) const = default;
};

// Number of elements (1 for a 0-d tensor). Example: numel({{16, 8192, 4096}, kBF16}) == 2^29.
// @post error (kBadInput, naming `what`) when the product overflows int64.
core::Result<std::int64_t> numel(const TensorMeta& meta, std::string_view what = "tensor");

// numel * dtype bytes, checked. Example: bytes({{4096, 4096}, kF32}) == 67108864.
core::Result<std::int64_t> bytes(const TensorMeta& meta, std::string_view what = "tensor");

// "bf16[16,8192,4096]"; a 0-d tensor is "i64[]".
std::string format_meta(const TensorMeta& meta);

// "[16,8192,4096]".
std::string format_shape(std::span<const std::int64_t> shape);

}  // namespace dtplan::graph
