#include "cost/alpha_beta_model.h"

#include <algorithm>
#include <string>
#include <utility>

#include "cost/nccl_constants.h"
#include "cost/nccl_p2p.h"

namespace dtplan::cost {

using collective::Collective;

AlphaBetaParams alpha_beta_params(const HardwareProfile& profile) {
  if (profile.alpha_beta) return *profile.alpha_beta;
  const NcclConstants& k = nccl_constants(profile.nccl.version);
  const int ring = static_cast<int>(Algorithm::kRing);
  const int simple = static_cast<int>(Protocol::kSimple);
  const int intra = static_cast<int>(
      profile.node.intra_fabric == IntraFabric::kNvSwitch ? HwLink::kNvLink : HwLink::kPci);
  AlphaBetaParams p;
  p.launch_us = k.base_latency_us[ring][simple];
  p.intra_hop_us = k.hw_latency_us[intra][ring][simple];
  p.intra_gbyte_per_s = intra_bus_gbyte_per_s(profile);
  p.inter_hop_us = k.hw_latency_us[static_cast<int>(HwLink::kNet)][ring][simple];
  p.nic_gbyte_per_s = nic_path_gbyte_per_s(profile.node);
  return p;
}

AlphaBetaModel::AlphaBetaModel(HardwareProfile profile)
    : profile_(std::move(profile)), params_(alpha_beta_params(profile_)) {}

core::Result<CollectiveCost> AlphaBetaModel::cost(Collective collective, std::int64_t bytes,
                                                  const GroupTopology& t) const {
  if (bytes < 0) {
    return core::Error::bad_input("collective " + std::string(collective::name(collective)) +
                                  ": bytes must be >= 0, got " + std::to_string(bytes));
  }
  DTPLAN_CHECK(check_topology(profile_, t));
  if (t.ranks == 1 || bytes == 0) return finish_cost(profile_, collective, bytes, t, {});

  const AlphaBetaParams& a = params_;
  const double n = t.ranks;
  const double m = t.nodes;
  const double s = static_cast<double>(bytes);
  const bool multi = t.nodes > 1;
  const std::int32_t k = local_nics(profile_.node, t.min_ranks_per_node);
  const double b_nic_gpu =
      a.nic_gbyte_per_s * std::min(1.0, static_cast<double>(k) / t.min_ranks_per_node);
  const double b_bus =
      multi ? std::min(a.intra_gbyte_per_s, k * a.nic_gbyte_per_s) : a.intra_gbyte_per_s;
  const double ring_alpha = (n - m) * a.intra_hop_us + (m - 1) * a.inter_hop_us;

  CollectiveCost raw;
  raw.algorithm = Algorithm::kRing;
  raw.protocol = Protocol::kNone;
  double transfer_us = 0;
  switch (collective) {
    case Collective::kAllGather:
    case Collective::kReduceScatter:
      raw.latency_us = a.launch_us + ring_alpha;
      transfer_us = (n - 1) / n * s / (1000.0 * b_bus);
      break;
    case Collective::kAllReduce:
      raw.latency_us = a.launch_us + 2 * ring_alpha;
      transfer_us = 2 * (n - 1) / n * s / (1000.0 * b_bus);
      break;
    case Collective::kBroadcast:
    case Collective::kReduce:
      raw.latency_us = a.launch_us + ring_alpha;
      transfer_us = s / (1000.0 * b_bus);
      break;
    case Collective::kSendRecv:
      raw.algorithm = Algorithm::kP2p;
      raw.latency_us = a.launch_us + (multi ? a.inter_hop_us : a.intra_hop_us);
      transfer_us = s / (1000.0 * (multi ? b_nic_gpu : a.intra_gbyte_per_s));
      break;
    default: {  // all_to_all, gather, scatter
      raw.algorithm = Algorithm::kP2p;
      bool root = collective != Collective::kAllToAll;
      double far = root ? n - t.max_ranks_per_node : n - t.min_ranks_per_node;
      raw.latency_us = a.launch_us + (t.max_ranks_per_node - 1) * a.intra_hop_us +
                       (multi ? far * a.inter_hop_us : 0.0);
      double intra = s * (t.max_ranks_per_node - 1) / n / (1000.0 * a.intra_gbyte_per_s);
      double nic = root ? a.nic_gbyte_per_s : b_nic_gpu;
      double inter = multi ? s * far / n / (1000.0 * nic) : 0.0;
      transfer_us = std::max(intra, inter);
      break;
    }
  }
  raw.bandwidth_us = transfer_us;
  raw.time_us = raw.latency_us + transfer_us;
  return finish_cost(profile_, collective, bytes, t, raw);
}

}  // namespace dtplan::cost
