#pragma once
// Hardware profiles of the source tree (configs/hardware/NAME.json) for tests.

#include <string>

#include "cost/hardware.h"
#include "cost/hardware_io.h"

namespace dtplan::testing {

// The search that finds the source tree's configs folder, wherever the test runs.
cost::ConfigSearch source_configs();

// Loads configs/hardware/NAME.json; fails the test (REQUIRE) if it does not load.
cost::HardwareProfile profile(const std::string& name);

}  // namespace dtplan::testing
