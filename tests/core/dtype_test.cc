#include "core/dtype.h"

#include <doctest/doctest.h>

namespace dtplan::core {
namespace {

TEST_CASE("dtype names, widths and parsing") {
  CHECK(dtype_bytes(DType::kBF16) == 2);
  CHECK(dtype_bytes(DType::kF32) == 4);
  CHECK(dtype_bytes(DType::kI64) == 8);
  CHECK(dtype_bytes(DType::kU8) == 1);
  CHECK(dtype_bytes(DType::kC64) == 8);
  CHECK(parse_dtype("torch.complex64", "d").value() == DType::kC64);
  CHECK(parse_dtype("torch.bfloat16", "d").value() == DType::kBF16);
  CHECK(parse_dtype("float", "d").value() == DType::kF32);
  CHECK(parse_dtype("long", "d").value() == DType::kI64);
  for (DType d : {DType::kF32, DType::kBF16, DType::kF16, DType::kF64, DType::kI32, DType::kI64,
                  DType::kI8, DType::kU8, DType::kBool, DType::kF8E4M3, DType::kC64}) {
    CHECK(parse_dtype(dtype_name(d), "d").value() == d);
  }
  auto bad = parse_dtype("bf17", "--dtype");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("--dtype: unknown dtype 'bf17'") == 0);
  CHECK(is_floating(DType::kBF16));
  CHECK_FALSE(is_floating(DType::kI32));
}

}  // namespace
}  // namespace dtplan::core
