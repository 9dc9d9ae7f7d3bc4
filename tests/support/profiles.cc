#include "support/profiles.h"

#include <doctest/doctest.h>

namespace dtplan::testing {

cost::ConfigSearch source_configs() {
  return cost::ConfigSearch{{std::string(DTPLAN_SOURCE_DIR) + "/configs"}};
}

cost::HardwareProfile profile(const std::string& name) {
  auto p = cost::load_hardware(name, source_configs(), "test");
  if (!p.ok()) FAIL(p.error().message);
  return p.value();
}

}  // namespace dtplan::testing
