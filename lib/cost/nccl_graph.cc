#include "cost/nccl_graph.h"

#include <algorithm>
#include <cmath>

#include "cost/nccl_constants.h"

namespace dtplan::cost {

namespace {

// NCCL searches at most MAXCHANNELS/2 channels before duplicating them.
constexpr std::int32_t kMaxSearchChannels = 16;

bool at_least_hopper(GpuArch arch) { return arch >= GpuArch::kHopper; }

// The ladder speed s with the largest channels(s) x s, where channels(s) is how many s-wide
// channels fit in `bw` (at most `max_channels`); ties go to the faster speed (NCCL searches from
// the fastest speed down and keeps the first best solution).
NcclGraph best_speed(std::span<const double> ladder, double gpu_bw, std::int32_t max_channels) {
  NcclGraph best;
  double best_total = 0;
  for (double s : ladder) {
    auto fit = static_cast<std::int32_t>(std::floor(gpu_bw / s + 1e-9));
    std::int32_t channels = std::min(fit, max_channels);
    double total = channels * s;
    if (channels > 0 && total > best_total + 1e-9) {
      best = {channels, s, s};
      best_total = total;
    }
  }
  if (best.channels == 0) best = {1, gpu_bw, gpu_bw};  // slower than every ladder step
  return best;
}

// ncclTopoDupChannels: a graph with bwIntra >= 25 is duplicated (channels x2, bandwidths /2),
// except on SM90+ when bwIntra < 50 with more than 4 channels.
NcclGraph duplicated(NcclGraph g, GpuArch arch) {
  if (g.channels == 0 || g.bw_intra < 25.0) return g;
  if (at_least_hopper(arch) && g.bw_intra < 50.0 && g.channels > 4) return g;
  return {g.channels * 2, g.bw_intra / 2, g.bw_inter / 2};
}

}  // namespace

double ladder_floor(std::span<const double> ladder, double limit) {
  for (double s : ladder) {
    if (s <= limit + 1e-9) return s;
  }
  return 0.0;
}

NcclGraphs nccl_graphs(const HardwareProfile& profile, const GroupTopology& topology) {
  const NodeSpec& node = profile.node;
  GpuArch arch = profile.gpu.arch;
  std::span<const double> intra = intra_speeds(arch);
  std::span<const double> inter = inter_speeds(arch);
  double gpu_bw = intra_gbyte_per_s(node);
  std::int32_t local = topology.min_ranks_per_node;  // the node with the fewest members bounds
  bool multi_node = topology.nodes > 1;

  NcclGraphs out;
  NcclGraph ring;
  NcclGraph tree;
  if (!multi_node) {
    ring = best_speed(intra, gpu_bw, kMaxSearchChannels);
    tree = ring;
  } else {
    // Rings are built node by node; each channel leaves a node through one NIC and different
    // channels use different NICs, so the channels add up (docs/reference/collectives.md §3.3): one
    // channel per NIC the local GPUs can reach, at the NIC path's ladder speed.
    std::int32_t nics = local_nics(node, local);
    NcclGraph per_nic = best_speed(inter, nic_path_gbyte_per_s(node),
                                   std::max<std::int32_t>(1, kMaxSearchChannels / nics));
    ring = {nics * per_nic.channels, per_nic.bw_intra, per_nic.bw_inter};
    tree = ring;
    // NCCL's second search pass raises bwIntra of trees (used on 2 nodes and by CollNet) as far
    // as the chain through the node's NVLink allows: channels x bwIntra <= the GPU's bandwidth.
    if (local >= 2) {
      double raised = ladder_floor(intra, gpu_bw / tree.channels);
      if (raised > tree.bw_intra) tree.bw_intra = raised;
    }
  }
  out.ring = duplicated(ring, arch);
  out.tree = duplicated(tree, arch);
  if (profile.nccl.collnet && multi_node) out.collnet = out.tree;

  // Run-time channels: twice the graph's, doubled again on SM90+ multi-node rings with
  // bwIntra > 45 and fewer than 16 channels.
  out.runtime_channels = out.ring.channels * 2;
  if (at_least_hopper(arch) && multi_node && out.ring.bw_intra > 45.0 &&
      out.runtime_channels < 16) {
    out.runtime_channels *= 2;
  }
  out.same_channels = !multi_node;

  // NVLS: one channel per local GPU (each is the head of one), every channel loading every GPU's
  // NVLink; across nodes each head also needs its share of the local NICs.
  bool nvls = node.nvls && node.intra_fabric == IntraFabric::kNvSwitch && at_least_hopper(arch) &&
              local >= 2;
  if (nvls) {
    double limit = gpu_bw / local;
    double s = 0;
    if (!multi_node) {
      s = ladder_floor(intra, limit);
    } else {
      double nic_share = nic_path_gbyte_per_s(node) * local_nics(node, local) / local;
      s = ladder_floor(inter, std::min(limit, nic_share));
    }
    if (s > 0) out.nvls = {local, s, s};
  }
  return out;
}

}  // namespace dtplan::cost
