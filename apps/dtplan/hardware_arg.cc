#include "hardware_arg.h"

#include "config_args.h"
#include "core/strings.h"
#include "cost/hardware_io.h"

namespace dtplan::cli {

core::Result<cost::HardwareProfile> load_hardware_arg(std::string_view value,
                                                      std::string_view flag) {
  return cost::load_hardware(value, shipped_config_search(), flag);
}

core::Result<cost::HardwareProfile> load_hardware_or_default(std::string_view flag_value,
                                                             std::string_view mesh_hardware) {
  const std::string_view name = !flag_value.empty()      ? flag_value
                                : !mesh_hardware.empty() ? mesh_hardware
                                                         : kDefaultHardware;
  return load_hardware_arg(name, "--hardware");
}

core::Result<std::int64_t> gpus_per_node_arg(std::string_view value,
                                             const cost::HardwareProfile& profile) {
  if (value.empty()) return profile.node.gpus_per_node;
  DTPLAN_TRY(std::int64_t gpus, core::parse_int(value, "--gpus-per-node"));
  if (gpus < 1 || gpus > profile.node.gpus_per_node) {
    return core::Error::bad_input("--gpus-per-node: " + std::to_string(gpus) + " is not in [1, " +
                                  std::to_string(profile.node.gpus_per_node) +
                                  "] (GPUs per node of " + profile.name + ")");
  }
  return gpus;
}

}  // namespace dtplan::cli
