#include "graph/tensor_meta.h"

#include "core/checked.h"
#include "core/strings.h"

namespace dtplan::graph {

core::Result<std::int64_t> numel(const TensorMeta& meta, std::string_view what) {
  return core::checked_product(meta.shape, what);
}

core::Result<std::int64_t> bytes(const TensorMeta& meta, std::string_view what) {
  DTPLAN_TRY(std::int64_t n, numel(meta, what));
  return core::checked_mul(n, core::dtype_bytes(meta.dtype), what);
}

std::string format_shape(std::span<const std::int64_t> shape) {
  return core::format_int_list(shape);
}

std::string format_meta(const TensorMeta& meta) {
  return std::string(core::dtype_name(meta.dtype)) + format_shape(meta.shape);
}

}  // namespace dtplan::graph
