#pragma once
// The bodies of the libFuzzer targets (tests/fuzz/): one function per parser or loader that takes
// arbitrary bytes, runs them through the library and checks what must hold for every input (the
// call returns instead of crashing, a parsed value prints back to an equal value). The libFuzzer
// driver (tests/fuzz/fuzz_main.cc) runs one body per binary; the doctest suite runs every seed
// and every regression input under tests/fuzz/ through the same bodies, in the ASan/UBSan build.
//
// Adding a target: write `std::string fuzz_<name>(std::string_view)` in fuzz_targets.cc, add one
// line to its table, and a seed corpus folder tests/fuzz/corpus/<name>/ (README there).

#include <span>
#include <string>
#include <string_view>

namespace dtplan::testing {

// A fuzz body: empty when every property held for this input, else what broke (the driver
// aborts with it, so libFuzzer saves the input). Crashes, sanitizer reports and uncaught
// exceptions are failures too.
using FuzzBody = std::string (*)(std::string_view input);

struct FuzzTarget {
  std::string_view name;   // the binary is dtplan_fuzz_<name>; corpus tests/fuzz/corpus/<name>
  std::string_view input;  // what the bytes are, for the README and --help
  FuzzBody body;
};

// Every target, in a fixed order.
std::span<const FuzzTarget> fuzz_targets();

// The target named `name`, or nullptr.
const FuzzTarget* find_fuzz_target(std::string_view name);

}  // namespace dtplan::testing
