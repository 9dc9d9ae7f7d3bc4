#include "report/nccl_format.h"

#include <doctest/doctest.h>

#include <limits>

namespace dtplan::report {
namespace {

TEST_CASE("nccl_float: two decimals, then one, then none, then an exponent") {
  CHECK(nccl_float(25.2295, 7) == "25.23");
  CHECK(nccl_float(0, 7) == "0.00");
  CHECK(nccl_float(12345.67, 7) == "12345.7");
  CHECK(nccl_float(123456.7, 7) == "123457");
  CHECK(nccl_float(123456789.0, 7) == "1.2e+08");
  CHECK(nccl_float(std::numeric_limits<double>::infinity(), 7) == "inf");
  CHECK(nccl_float(std::numeric_limits<double>::quiet_NaN(), 7) == "nan");
}

}  // namespace
}  // namespace dtplan::report
