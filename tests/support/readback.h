#pragma once
// Reading a plan back in tests: the error a read or the check after it reports, or "" when both
// pass. Both must refuse as bad input (kBadInput), as the commands do with an edited plan.

#include <doctest/doctest.h>

#include <string>

#include "core/result.h"

namespace dtplan::testing {

// The message of `read`'s error, else of `check(*read)`'s, else "".
template <class Plan, class Check>
std::string readback_error(const core::Result<Plan>& read, const Check& check) {
  if (!read.ok()) {
    CHECK(read.error().kind == core::ErrorKind::kBadInput);
    return read.error().message;
  }
  const core::Status checked = check(*read);
  if (!checked.ok()) {
    CHECK(checked.error().kind == core::ErrorKind::kBadInput);
    return checked.error().message;
  }
  return "";
}

}  // namespace dtplan::testing
