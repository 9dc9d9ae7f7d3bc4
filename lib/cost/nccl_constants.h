#pragma once
// NCCL's tuning constants (src/graph/tuning.cc and src/graph/search.cc), per release, as listed
// in docs/reference/collectives.md §2.1-2.3. Latencies in microseconds, bandwidths in GB/s (1e9).
// Indexes follow NCCL: algorithms Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT;
// protocols LL, LL128, Simple; links NVLink, PCI, NET; node-count columns N1 (1 node), N2 (2),
// N4 (3 or more).

#include <array>
#include <span>

#include "cost/hardware_enums.h"

namespace dtplan::cost {

// NCCL's algorithm order; selection ties go to the earlier one (and the earlier protocol).
enum class Algorithm : std::uint8_t {
  kTree,
  kRing,
  kCollNetDirect,
  kCollNetChain,
  kNvls,
  kNvlsTree,
  kPat,
  kP2p,       // grouped send/recv (all_to_all, which NCCL does not tune as a collective)
  kMeasured,  // a measured table of the profile
  kNone,      // nothing to do (one rank, or zero bytes)
};
inline constexpr int kNumNcclAlgorithms = 7;  // the first seven are NCCL's

enum class Protocol : std::uint8_t { kLL, kLL128, kSimple, kNone };
inline constexpr int kNumProtocols = 3;

enum class HwLink : std::uint8_t { kNvLink, kPci, kNet };

// "Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT", "P2P", "measured",
// "none".
std::string_view algorithm_name(Algorithm algorithm);
// "LL", "LL128", "Simple", "-".
std::string_view protocol_name(Protocol protocol);

using PerProto = std::array<double, kNumProtocols>;
using PerAlgo = std::array<PerProto, kNumNcclAlgorithms>;
using PerScale = std::array<double, 3>;   // N1, N2, N4
using PerArch = std::array<PerScale, 4>;  // Volta, Ampere, Hopper, Blackwell

struct NcclConstants {
  PerAlgo base_latency_us;                // baseLat
  std::array<PerAlgo, 3> hw_latency_us;   // hwLat[link]
  PerArch ll_max_gbyte_per_s;             // llMaxBws: N1 by GPU row; N2/N4 by CPU row
  PerArch ring_ll128_cap;                 // perChMaxRingLL128Bws (per channel)
  PerArch tree_ll128_cap;                 // perChMaxTreeLL128Bws (per channel)
  PerArch tree_cap;                       // perChMaxTreeBws (per channel)
  PerArch nvls_tree_cap;                  // perChMaxNVLSTreeBws (per channel; 0 = none)
  std::array<double, 4> nvls_efficiency;  // nvlsEfficiency by GPU generation
  std::array<std::array<double, 24>, kNumProtocols> tree_correction;  // [proto][log2(B/64)]
  GpuArch newest_arch;  // newer GPUs use this generation's rows
  bool has_pat;         // PAT exists (2.23 and later)
};

// The constants of a release. @post the same object for every call with the same version.
const NcclConstants& nccl_constants(NcclVersion version);

// Topology-search speed ladders (GB/s per channel), fastest first.
std::span<const double> intra_speeds(GpuArch arch);
std::span<const double> inter_speeds(GpuArch arch);

// Network post overhead per ring step on multi-node rings (getNetOverhead): 1 us (Intel, ARM),
// 2 us (AMD).
double net_overhead_us(CpuVendor vendor);

}  // namespace dtplan::cost
