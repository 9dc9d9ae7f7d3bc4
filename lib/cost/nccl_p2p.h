#pragma once
// Point-to-point collectives (all_to_all, send/recv, gather, scatter): NCCL runs them as grouped
// send/recv, not through its tuning model, so they are priced on their own (never as an
// all_gather). Rules (docs/reference/collectives.md §3.3):
//   - latency: one Simple launch (Ring/Simple base latency) plus one NVLink/PCI hop when peers
//     share a node, plus one network hop and the network post overhead (x3, Simple) when they
//     do not;
//   - all_to_all: each rank sends (n-1)/n of S; the share for peers on its own node goes over the
//     intra-node fabric (the single-node ring bus bandwidth) while the share for other nodes goes
//     concurrently over the rank's own NIC. AlltoAll cannot aggregate NICs, so a GPU gets its
//     NIC's rate (its share of one when NICs are fewer than GPUs; NIC rates are scaled by the
//     profile's nic_efficiency for the group's node count):
//       t = latency + max(S (G_max - 1) / n / B_intra, S (n - G_min) / n / B_nic);
//   - send/recv: S over the slowest pair (the NIC when the group spans nodes);
//   - gather / scatter: the root receives / sends (n-1)/n of S, its intra share over the fabric
//     and the rest through its one NIC.

#include <cstdint>

#include "collective/collective.h"
#include "cost/group_topology.h"
#include "cost/hardware.h"
#include "cost/nccl_tuning.h"

namespace dtplan::cost {

// The P2P/Simple candidate for a point-to-point collective.
// @pre check_topology passed, topology.ranks >= 2, bytes >= 1, !is_tuned(collective).
Candidate p2p_candidate(const HardwareProfile& profile, NcclVersion version,
                        collective::Collective collective, std::int64_t bytes,
                        const GroupTopology& topology);

// The single-node ring bus bandwidth of the profile's fabric (H100 SXM: 12 x 30 = 360 GB/s).
double intra_bus_gbyte_per_s(const HardwareProfile& profile);

}  // namespace dtplan::cost
