#include "cost/hardware_enums.h"

#include <array>
#include <string>
#include <vector>

#include "core/strings.h"

namespace dtplan::cost {

namespace {

// Looks `text` up in `names` (index = enum value); the error lists the accepted names.
template <class Enum, std::size_t N>
core::Result<Enum> parse_named(std::string_view text, std::string_view what,
                               const std::array<std::string_view, N>& names,
                               std::string_view kind) {
  std::string_view t = core::trim(text);
  for (std::size_t i = 0; i < N; ++i) {
    if (t == names[i]) return static_cast<Enum>(i);
  }
  std::vector<std::string> list(names.begin(), names.end());
  return core::Error::bad_input(std::string(what) + ": unknown " + std::string(kind) + " '" +
                                std::string(text) + "'; expected one of " + core::join(list, ", "));
}

constexpr std::array<std::string_view, 4> kArchNames = {"volta", "ampere", "hopper", "blackwell"};
constexpr std::array<std::string_view, 3> kVendorNames = {"intel", "amd", "arm"};
constexpr std::array<std::string_view, 2> kFabricNames = {"nvswitch", "pcie"};
constexpr std::array<std::string_view, 4> kVersionNames = {"2.18", "2.21", "2.23", "2.28"};

}  // namespace

std::string_view arch_name(GpuArch arch) { return kArchNames[static_cast<std::size_t>(arch)]; }

core::Result<GpuArch> parse_arch(std::string_view text, std::string_view what) {
  return parse_named<GpuArch>(text, what, kArchNames, "GPU architecture");
}

std::string_view cpu_vendor_name(CpuVendor vendor) {
  return kVendorNames[static_cast<std::size_t>(vendor)];
}

core::Result<CpuVendor> parse_cpu_vendor(std::string_view text, std::string_view what) {
  return parse_named<CpuVendor>(text, what, kVendorNames, "CPU vendor");
}

std::string_view fabric_name(IntraFabric fabric) {
  return kFabricNames[static_cast<std::size_t>(fabric)];
}

core::Result<IntraFabric> parse_fabric(std::string_view text, std::string_view what) {
  return parse_named<IntraFabric>(text, what, kFabricNames, "intra-node fabric");
}

std::string_view nccl_version_name(NcclVersion version) {
  return kVersionNames[static_cast<std::size_t>(version)];
}

core::Result<NcclVersion> parse_nccl_version(std::string_view text, std::string_view what) {
  std::string_view t = core::trim(text);
  auto bad = [&] {
    return core::Error::bad_input(std::string(what) + ": '" + std::string(text) +
                                  "' is not an NCCL version (expected e.g. 2.18, 2.21, 2.23, "
                                  "2.28 or 2.22.3)");
  };
  std::vector<std::string_view> parts = core::split(t.substr(0, t.find('-')), '.');
  if (parts.size() < 2 || parts.size() > 3) return bad();
  std::int64_t numbers[3] = {0, 0, 0};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].empty() || parts[i].find_first_not_of("0123456789") != std::string_view::npos ||
        parts[i].size() > 6) {
      return bad();
    }
    numbers[i] = core::parse_int(parts[i], what).value_or(-1);
  }
  std::int64_t major = numbers[0];
  std::int64_t minor = numbers[1];
  if (major != 2 || minor < 18) {
    if (major > 2) return NcclVersion::k2_28;
    return core::Error::unsupported(std::string(what) + ": NCCL " + std::string(t) +
                                    " predates 2.18; dtplan has tuning constants for 2.18 and "
                                    "later only");
  }
  if (minor == 18) return NcclVersion::k2_18;
  if (minor <= 22) return NcclVersion::k2_21;
  if (minor <= 27) return NcclVersion::k2_23;
  return NcclVersion::k2_28;
}

}  // namespace dtplan::cost
