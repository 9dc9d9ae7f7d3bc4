// libFuzzer entry point of one fuzz target: the build compiles this file once per target with
// DTPLAN_FUZZ_TARGET set to its name (tests/fuzz/CMakeLists.txt); the body is in
// tests/support/fuzz_targets.cc. A property that does not hold aborts, so libFuzzer keeps the
// input as a crash.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "support/fuzz_targets.h"

#ifndef DTPLAN_FUZZ_TARGET
#error "DTPLAN_FUZZ_TARGET must name a target of tests/support/fuzz_targets.cc"
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const dtplan::testing::FuzzTarget* target =
      dtplan::testing::find_fuzz_target(DTPLAN_FUZZ_TARGET);
  if (target == nullptr) {
    std::fprintf(stderr, "dtplan fuzz: no target '%s'\n", DTPLAN_FUZZ_TARGET);
    std::abort();
  }
  std::string failure = target->body(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!failure.empty()) {
    std::fprintf(stderr, "dtplan fuzz %s: property failed: %s\n", DTPLAN_FUZZ_TARGET,
                 failure.c_str());
    std::abort();
  }
  return 0;
}
