#include "cost/nccl_p2p.h"

#include <algorithm>

#include "cost/nccl_graph.h"

namespace dtplan::cost {

using collective::Collective;

double intra_bus_gbyte_per_s(const HardwareProfile& profile) {
  NcclGraphs g = nccl_graphs(profile, uniform_topology(1, 2));
  return g.ring.channels * g.ring.bw_intra;
}

Candidate p2p_candidate(const HardwareProfile& profile, NcclVersion version, Collective collective,
                        std::int64_t bytes, const GroupTopology& topology) {
  const NcclConstants& k = nccl_constants(version);
  const int ring = static_cast<int>(Algorithm::kRing);
  const int simple = static_cast<int>(Protocol::kSimple);
  const int intra_link = static_cast<int>(
      profile.node.intra_fabric == IntraFabric::kNvSwitch ? HwLink::kNvLink : HwLink::kPci);
  const int net = static_cast<int>(HwLink::kNet);
  const bool multi = topology.nodes > 1;

  double lat = k.base_latency_us[ring][simple];
  if (topology.max_ranks_per_node > 1) lat += k.hw_latency_us[intra_link][ring][simple];
  if (multi) {
    lat += k.hw_latency_us[net][ring][simple] + 3.0 * net_overhead_us(profile.node.cpu_vendor);
  }

  const double n = topology.ranks;
  const double s = static_cast<double>(bytes);
  const double b_intra = intra_bus_gbyte_per_s(profile);
  const double path = nic_path_gbyte_per_s(profile.node) * nic_efficiency(profile, topology.nodes);
  const std::int32_t g_min = topology.min_ranks_per_node;
  const std::int32_t g_max = topology.max_ranks_per_node;
  // A GPU's share of the NICs next to it (a whole NIC when there is one per GPU).
  const double b_nic =
      path * std::min(1.0, static_cast<double>(local_nics(profile.node, g_min)) / g_min);

  double transfer_us = 0;  // bytes / (1000 x GB/s) = us
  switch (collective) {
    case Collective::kAllToAll: {
      double intra = s * (g_max - 1) / n / (1000.0 * b_intra);
      double inter = multi ? s * (n - g_min) / n / (1000.0 * b_nic) : 0.0;
      transfer_us = std::max(intra, inter);
      break;
    }
    case Collective::kSendRecv:
      transfer_us = s / (1000.0 * (multi ? b_nic : b_intra));
      break;
    default: {  // gather, scatter: the root's traffic
      double intra = s * (g_max - 1) / n / (1000.0 * b_intra);
      double inter = multi ? s * (n - g_max) / n / (1000.0 * path) : 0.0;
      transfer_us = std::max(intra, inter);
      break;
    }
  }
  double algbw = transfer_us > 0 ? s / (1000.0 * transfer_us) : 0.0;
  return {Algorithm::kP2p,
          Protocol::kSimple,
          lat,
          algbw,
          lat + transfer_us,
          algbw,
          multi ? Bottleneck::kNetwork : Bottleneck::kIntra};
}

}  // namespace dtplan::cost
