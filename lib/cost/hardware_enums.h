#pragma once
// The small vocabularies of a hardware profile (GPU generation, CPU vendor, intra-node fabric,
// NCCL version) with their JSON/CLI spellings.

#include <cstdint>
#include <string_view>

#include "core/result.h"

namespace dtplan::cost {

// GPU generation, as NCCL indexes its tuning constants (compCapIndex).
enum class GpuArch : std::uint8_t { kVolta, kAmpere, kHopper, kBlackwell };

// Host CPU vendor: NCCL picks the multi-node LL bandwidth cap and the network post overhead by it.
enum class CpuVendor : std::uint8_t { kIntel, kAmd, kArm };

// How the GPUs of one node reach each other.
enum class IntraFabric : std::uint8_t {
  kNvSwitch,  // every GPU has its full NVLink bandwidth to every other (DGX/HGX)
  kPcie,      // peer-to-peer over PCIe (no NVLink)
};

// NCCL releases whose tuning constants differ (docs/reference/collectives.md §2.1-2.2):
//   k2_18: 2.18.x; k2_21: 2.19-2.22; k2_23: 2.23-2.27 (PAT appears); k2_28: 2.28 and later.
enum class NcclVersion : std::uint8_t { k2_18, k2_21, k2_23, k2_28 };

// "volta", "ampere", "hopper", "blackwell".
std::string_view arch_name(GpuArch arch);
core::Result<GpuArch> parse_arch(std::string_view text, std::string_view what);

// "intel", "amd", "arm".
std::string_view cpu_vendor_name(CpuVendor vendor);
core::Result<CpuVendor> parse_cpu_vendor(std::string_view text, std::string_view what);

// "nvswitch", "pcie".
std::string_view fabric_name(IntraFabric fabric);
core::Result<IntraFabric> parse_fabric(std::string_view text, std::string_view what);

// "2.18", "2.21", "2.23", "2.28".
std::string_view nccl_version_name(NcclVersion version);

// Accepts "MAJOR.MINOR[.PATCH[-BUILD]]" for 2.18 and later and maps it to its constant set:
// 2.18 -> k2_18; 2.19..2.22 -> k2_21; 2.23..2.27 -> k2_23; 2.28 and later -> k2_28.
// Example: parse_nccl_version("2.22.3", "--nccl-version") == NcclVersion::k2_21.
// @post error (kBadInput) for malformed text; (kUnsupported) for releases before 2.18.
core::Result<NcclVersion> parse_nccl_version(std::string_view text, std::string_view what);

}  // namespace dtplan::cost
