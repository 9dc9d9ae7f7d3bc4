#include "hardware_arg.h"

#include <filesystem>
#include <system_error>

#include "cost/hardware_io.h"

namespace dtplan::cli {

core::Result<cost::HardwareProfile> load_hardware_arg(std::string_view value,
                                                      std::string_view flag) {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) exe.clear();
  return cost::load_hardware(value, cost::config_search(exe), flag);
}

}  // namespace dtplan::cli
