#pragma once
// Shared by every subcommand with a --hardware flag: finds a hardware profile by name (in the
// folders shipped_config_search lists, config_args.h) or by file path, with errors that name the
// flag; the --gpus-per-node flag read against the profile.

#include <cstdint>
#include <string_view>

#include "core/result.h"
#include "cost/hardware.h"

namespace dtplan::cli {

// Example: load_hardware_arg("h100-dgx", "--hardware").
core::Result<cost::HardwareProfile> load_hardware_arg(std::string_view value,
                                                      std::string_view flag);

// The default value of --hardware.
inline constexpr std::string_view kDefaultHardware = "h100-dgx";

// The profile --hardware names (`flag_value`), else the one the mesh file names
// (`mesh_hardware`), else kDefaultHardware; errors name --hardware.
core::Result<cost::HardwareProfile> load_hardware_or_default(std::string_view flag_value,
                                                             std::string_view mesh_hardware);

// --gpus-per-node: `value` in [1, the profile's GPUs per node], or the profile's where empty.
// Example error: "--gpus-per-node: 9 is not in [1, 8] (GPUs per node of h100-dgx)".
core::Result<std::int64_t> gpus_per_node_arg(std::string_view value,
                                             const cost::HardwareProfile& profile);

}  // namespace dtplan::cli
