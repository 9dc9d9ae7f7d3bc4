#include "core/result.h"

#include <doctest/doctest.h>

#include <string>

namespace dtplan::core {
namespace {

Result<int> half(int x) {
  if (x % 2 != 0) return Error::bad_input("half: " + std::to_string(x) + " is odd");
  return x / 2;
}

Result<int> quarter(int x) {
  DTPLAN_TRY(int h, half(x));
  DTPLAN_TRY(int q, half(h));
  return q;
}

Status even(int x) {
  DTPLAN_CHECK(half(x));
  return {};
}

TEST_CASE("Result carries a value or an error") {
  CHECK(quarter(8).value() == 2);
  Result<int> r = quarter(6);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == ErrorKind::kBadInput);
  CHECK(r.error().message == "half: 3 is odd");
  CHECK(quarter(6).value_or(-1) == -1);
  CHECK(even(4).ok());
  CHECK_FALSE(even(5).ok());
}

TEST_CASE("Error context and exit codes") {
  Error e = Error::unsupported("P(sum) to P(max)").with_context("--to");
  CHECK(e.message == "--to: P(sum) to P(max)");
  CHECK(exit_code(e.kind) == 3);
  CHECK(exit_code(ErrorKind::kBadInput) == 2);
  CHECK(exit_code(ErrorKind::kBackendMissing) == 4);
  CHECK(exit_code(ErrorKind::kInternal) == 1);
}

}  // namespace
}  // namespace dtplan::core
