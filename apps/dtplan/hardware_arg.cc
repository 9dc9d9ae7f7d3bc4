#include "hardware_arg.h"

#include "config_args.h"
#include "cost/hardware_io.h"

namespace dtplan::cli {

core::Result<cost::HardwareProfile> load_hardware_arg(std::string_view value,
                                                      std::string_view flag) {
  return cost::load_hardware(value, shipped_config_search(), flag);
}

}  // namespace dtplan::cli
