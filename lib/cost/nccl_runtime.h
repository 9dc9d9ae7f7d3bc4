#pragma once
// What NCCL does at run time with an (algorithm, protocol) pair its tuner rates (nccl_tuning.h),
// and the time that achieves. NCCL's tuner prices every pair as latency + bytes / bandwidth with
// the whole communicator's channels; a launched collective differs from that estimate in three
// ways this file models (docs/model.md has the mechanisms, their sources and the fitted value):
//   - channels and threads: NCCL lowers both for small messages (topoGetAlgoInfo in enqueue.cc);
//   - the chunk pipeline: trees and NVLS move each channel's share in chunks whose size NCCL picks
//     by message size (calcCollChunking); the pipeline's fill is paid on top of the streaming time;
//   - the fabric: traffic that crosses nodes gets the profile's nic_efficiency of the NIC rate.
//
//   time_us = latency_us + bandwidth_us
//   bandwidth_us = bytes / achieved algbw + fill_us
//
// Rings (and PAT, CollNet, point-to-point) stream with every rank injecting at once, so they
// have no fill; their time is NCCL's estimate with the fabric factor.

#include <cstdint>

#include "collective/collective.h"
#include "cost/group_topology.h"
#include "cost/hardware.h"
#include "cost/nccl_graph.h"
#include "cost/nccl_tuning.h"

namespace dtplan::cost {

// The launch NCCL makes for one pair at one size.
struct RuntimeShape {
  std::int32_t channels = 0;     // CTAs (nc after NCCL's per-size lowering)
  std::int32_t threads = 0;      // threads per CTA (nt, with the extra sync warps)
  std::int64_t chunk_bytes = 0;  // per-channel pipeline unit (NCCL's chunk size for this size)
  bool operator==(const RuntimeShape&) const = default;
};

struct Achieved {
  RuntimeShape shape;
  double latency_us = 0;    // the candidate's latency (NCCL's, with the ring plateau factor)
  double bandwidth_us = 0;  // bytes at the achieved bandwidth, plus fill_us
  double fill_us = 0;       // the chunk pipeline's fill (0 for rings)
  double time_us = 0;       // latency_us + bandwidth_us
  bool operator==(const Achieved&) const = default;
};

// The launch NCCL makes for `candidate` on a tuned collective of `bytes`.
// @pre check_topology passed, topology.ranks >= 2, bytes >= 1, graphs == nccl_graphs(profile,
// topology), candidate from nccl_candidates for the same arguments (not P2P).
RuntimeShape runtime_shape(const HardwareProfile& profile, collective::Collective collective,
                           std::int64_t bytes, const GroupTopology& topology,
                           const NcclGraphs& graphs, const Candidate& candidate);

// The achieved time of `candidate` (a tuned pair, or the P2P candidate, whose time is kept).
// @pre as runtime_shape. @post time_us is non-decreasing in bytes for a fixed candidate pair.
Achieved achieve(const HardwareProfile& profile, collective::Collective collective,
                 std::int64_t bytes, const GroupTopology& topology, const NcclGraphs& graphs,
                 const Candidate& candidate);

// The pipeline depth of NVLS and NVLSTree in chunks per channel, fitted to the two calibration
// tables of tests/data/nccl-calibration (docs/model.md, "fitted values").
inline constexpr double kNvlsPipelineChunks = 20.0;

}  // namespace dtplan::cost
