#pragma once
// HardwareProfile: one machine type as the cost models see it (configs/hardware/*.json): GPU
// peak rates, the node's fabric (NVLink/NVSwitch with or without NVLS, NICs and their rate), the
// NCCL release whose tuning constants to use, compute efficiencies, collective overheads, and
// optional measured tables that override the formulas. JSON I/O is in hardware_io.h.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collective/collective.h"
#include "core/dtype.h"
#include "core/result.h"
#include "cost/group_topology.h"
#include "cost/hardware_enums.h"
#include "cost/kernel_efficiency.h"

namespace dtplan::cost {

inline constexpr std::size_t kDTypeSlots = 16;  // > number of core::DType values

struct GpuSpec {
  std::string model;  // "H100-SXM5-80GB"
  GpuArch arch = GpuArch::kHopper;
  std::array<double, kDTypeSlots> peak_flop_per_s{};  // dense tensor-core peak; 0 = not given
  double hbm_byte_per_s = 0;                          // HBM bandwidth, 1e9-based vendor figure
  std::int64_t hbm_capacity_bytes = 0;
  bool operator==(const GpuSpec&) const = default;
};

struct NodeSpec {
  std::int32_t gpus_per_node = 8;
  CpuVendor cpu_vendor = CpuVendor::kIntel;
  IntraFabric intra_fabric = IntraFabric::kNvSwitch;
  std::int32_t nvlink_links_per_gpu = 0;
  double nvlink_link_gbyte_per_s = 0;  // per link and direction, as NCCL rates it (SM90: 20.6)
  bool nvls = false;                   // NVLink SHARP (multicast/reduction in the switch)
  double pcie_gbyte_per_s = 0;         // GPU <-> NIC path (Gen4 x16: 24, Gen5 x16: 48)
  std::int32_t nics_per_node = 0;      // compute-fabric NICs, spread evenly over the GPUs
  double nic_gbit_per_s = 0;           // line rate of one NIC in Gb/s (NDR: 400)
  bool operator==(const NodeSpec&) const = default;
};

struct NcclSettings {
  NcclVersion version = NcclVersion::k2_28;
  bool collnet = false;  // CollNet/SHARP in the network (NCCL_COLLNET_ENABLE=1 and a plugin)
  bool operator==(const NcclSettings&) const = default;
};

// Added to every collective after the model: time = max(model, launch floor) + straggler skew.
struct CollectiveOverheads {
  double launch_floor_us = 0;    // the least a collective can take (0: the model's own floor)
  double straggler_skew_us = 0;  // expected arrival skew of the slowest rank in a training step
  bool operator==(const CollectiveOverheads&) const = default;
};

// How much of NCCL's NIC-path rate (nic_path_gbyte_per_s) collective traffic that crosses nodes
// achieves: multi-node rings, trees and PAT, the network part of NVLS/NVLSTree where it is the
// bottleneck, and the NIC share of point-to-point collectives. The factor for M nodes is
// nic_efficiency on 2 nodes, and nic_efficiency_at_scale x nic_efficiency_per_doubling ^
// max(0, log2(M / 4)) from 3 nodes on (NCCL's own >= 3-node scale class). Defaults and their
// sources: docs/model.md.
struct FabricEfficiency {
  double nic_efficiency = 1.0;               // 2 nodes
  double nic_efficiency_at_scale = 1.0;      // 3 and 4 nodes
  double nic_efficiency_per_doubling = 1.0;  // a further factor per doubling beyond 4 nodes
  bool operator==(const FabricEfficiency&) const = default;
};

// The compute roofline's derating: time = max(flops / (peak x efficiency),
// bytes / (HBM x memory_efficiency), launch_floor_us), where the efficiency is the kernel's
// (kernel_efficiency.h): a GEMM's from `gemm` by its FLOPs, an attention kernel's from
// `attention` by its key length, each times tensor_throughput_factor; compute_efficiency for
// other FLOPs and for GEMMs / attention when their table is absent (a profile without tables is
// the flat AutoParallel roofline). Sources of the shipped values: docs/model.md.
struct ComputeEfficiency {
  double compute_efficiency = 0.7;
  double memory_efficiency = 0.7;
  double launch_floor_us = 7.0;
  std::vector<EfficiencyPoint> gemm;             // by 2mnk; empty: compute_efficiency
  std::optional<AttentionEfficiency> attention;  // absent: compute_efficiency
  // Sustained tensor-core throughput relative to the conditions of the tables (a power cap or a
  // clock limit lowers it); multiplies the table efficiencies.
  double tensor_throughput_factor = 1.0;
  // The compute stream's speed while a collective (an NCCL kernel, which holds SMs and HBM
  // bandwidth) runs on the same GPU: the step simulator stretches overlapped compute by 1 / this.
  double nccl_overlap_compute_factor = 1.0;
  bool operator==(const ComputeEfficiency&) const = default;
};

// Parameters of the named alpha-beta (Hockney) model; derived from the fabric when absent.
struct AlphaBetaParams {
  double launch_us = 0;          // fixed cost per collective
  double intra_hop_us = 0;       // alpha of one NVLink/PCIe step
  double intra_gbyte_per_s = 0;  // per-GPU intra-node bus bandwidth
  double inter_hop_us = 0;       // alpha of one network step
  double nic_gbyte_per_s = 0;    // usable bandwidth of one NIC
  bool operator==(const AlphaBetaParams&) const = default;
};

struct MeasuredPoint {
  std::int64_t size_bytes = 0;  // S in the nccl-tests convention
  double time_us = 0;
  bool operator==(const MeasuredPoint&) const = default;
};

// A measured size -> time curve for one collective on one group layout (from nccl-tests).
struct MeasuredTable {
  collective::Collective collective = collective::Collective::kAllReduce;
  GroupTopology layout;
  std::vector<MeasuredPoint> points;  // strictly increasing sizes, all > 0
  std::string source;                 // where it came from (log file), informative
  bool operator==(const MeasuredTable&) const = default;
};

struct HardwareProfile {
  std::string name;
  std::string description;
  std::vector<std::string> notes;  // provenance of the numbers, free text
  GpuSpec gpu;
  NodeSpec node;
  NcclSettings nccl;
  CollectiveOverheads collective;
  FabricEfficiency fabric;
  ComputeEfficiency compute;
  std::optional<AlphaBetaParams> alpha_beta;
  std::vector<MeasuredTable> measured;
  bool operator==(const HardwareProfile&) const = default;
};

// Checks ranges and consistency; the error names the field path ("node.nic_gbit_per_s: must be
// > 0, got -1"). Loaders prefix the file name.
core::Status validate(const HardwareProfile& profile);

// Peak FLOP/s for a dtype; error (kUnsupported) naming the profile and dtype when not given.
core::Result<double> peak_flop_per_s(const HardwareProfile& profile, core::DType dtype);

// One NIC's usable rate as NCCL computes it: min(line rate / 8, GPU <-> NIC PCIe path), GB/s.
// Example (NDR 400 Gb/s on Gen5): min(50, 48) == 48.
double nic_path_gbyte_per_s(const NodeSpec& node);

// The FabricEfficiency factor for traffic between `nodes` nodes (1 for one node).
// Example: defaults give 1 for every node count; at_scale 0.9, per_doubling 0.95: 16 nodes ->
// 0.9 x 0.95^2.
double nic_efficiency(const HardwareProfile& profile, std::int32_t nodes);

// A GPU's total intra-node bandwidth per direction: NVLink links x per-link rate on NVSwitch,
// the PCIe rate otherwise. Example (H100 SXM): 18 x 20.6 == 370.8.
double intra_gbyte_per_s(const NodeSpec& node);

// NICs usable by `local_ranks` GPUs of one node (NICs spread evenly over GPUs, at least one).
// Example: 8 NICs, 8 GPUs per node: local_nics(node, 2) == 2; 4 NICs: local_nics(node, 1) == 1.
std::int32_t local_nics(const NodeSpec& node, std::int32_t local_ranks);

// The measured table for (collective, layout), or nullptr (measured_model.h interpolates it).
const MeasuredTable* find_measured(const HardwareProfile& profile,
                                   collective::Collective collective, const GroupTopology& layout);

}  // namespace dtplan::cost
