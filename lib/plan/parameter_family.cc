#include "plan/parameter_family.h"

#include <algorithm>

#include "core/strings.h"

namespace dtplan::plan {

std::string parameter_family(std::string_view name) {
  std::string out;
  bool first = true;
  for (std::string_view part : core::split(name, '.')) {
    if (!first) out += '.';
    first = false;
    const bool index = !part.empty() && std::all_of(part.begin(), part.end(),
                                                    [](char c) { return c >= '0' && c <= '9'; });
    out += index ? std::string_view("*") : part;
  }
  return out;
}

}  // namespace dtplan::plan
