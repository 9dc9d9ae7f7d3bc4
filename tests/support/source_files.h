#pragma once
// The sources of dtplan (every .cc and .h file under lib/ and apps/), for the tests that scan them
// for a pattern that must not come back (a second JSON parser, a second file reader).

#include <string>
#include <vector>

namespace dtplan::testing {

struct SourceFile {
  std::string path;  // relative to the source tree, e.g. "lib/core/json_io.cc"
  std::string text;
};

// Every .cc and .h file under lib/ and apps/, sorted by path.
std::vector<SourceFile> dtplan_sources();

}  // namespace dtplan::testing
