#pragma once
// Shared by every subcommand with a --hardware flag: finds a hardware profile by name (in the
// folders shipped_config_search lists, config_args.h) or by file path, with errors that name the
// flag.

#include <string_view>

#include "core/result.h"
#include "cost/hardware.h"

namespace dtplan::cli {

// Example: load_hardware_arg("h100-dgx", "--hardware").
core::Result<cost::HardwareProfile> load_hardware_arg(std::string_view value,
                                                      std::string_view flag);

// The default value of --hardware.
inline constexpr std::string_view kDefaultHardware = "h100-dgx";

}  // namespace dtplan::cli
