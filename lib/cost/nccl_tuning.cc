#include "cost/nccl_tuning.h"

#include <algorithm>
#include <bit>

#include "cost/nccl_graph.h"

namespace dtplan::cost {

namespace {

using collective::Collective;

constexpr int kTree = static_cast<int>(Algorithm::kTree);
constexpr int kRing = static_cast<int>(Algorithm::kRing);
constexpr int kSimple = static_cast<int>(Protocol::kSimple);

// Everything the per-candidate formulas read, computed once per call.
struct Context {
  const NcclConstants& k;
  const HardwareProfile& hw;
  Collective coll;
  GroupTopology topo;
  NcclGraphs graphs;
  int arch;       // row of the per-GPU tables (newer GPUs use the newest row NCCL knows)
  int scale;      // N1 / N2 / N4 column
  double ll_max;  // llMaxBw
  HwLink intra;   // NVLink or PCI
  int nsteps;     // ring steps for this collective
  bool all_reduce;
  bool ag_rs;
};

int log2_floor(std::int64_t v) {
  return v <= 0 ? -1 : 63 - std::countl_zero(static_cast<std::uint64_t>(v));
}

Context make_context(const HardwareProfile& hw, NcclVersion version, Collective coll,
                     const GroupTopology& topo) {
  const NcclConstants& k = nccl_constants(version);
  int arch = static_cast<int>(std::min(hw.gpu.arch, k.newest_arch));
  int scale = topo.nodes == 1 ? 0 : topo.nodes == 2 ? 1 : 2;
  // LL cap: on one node the GPU's row; across nodes the CPU's (row 0 Intel/other, row 1 AMD).
  int ll_row = topo.nodes == 1 ? arch : (hw.node.cpu_vendor == CpuVendor::kAmd ? 1 : 0);
  int n = topo.ranks;
  bool ar = coll == Collective::kAllReduce;
  bool ag_rs = coll == Collective::kAllGather || coll == Collective::kReduceScatter;
  int nsteps = ar ? 2 * (n - 1) : ag_rs ? n - 1 : n;
  return {k,
          hw,
          coll,
          topo,
          nccl_graphs(hw, topo),
          arch,
          scale,
          k.ll_max_gbyte_per_s[ll_row][scale],
          hw.node.intra_fabric == IntraFabric::kNvSwitch ? HwLink::kNvLink : HwLink::kPci,
          nsteps,
          ar,
          ag_rs};
}

const NcclGraph& graph_of(const Context& c, Algorithm a) {
  switch (a) {
    case Algorithm::kTree:
      return c.graphs.tree;
    case Algorithm::kCollNetDirect:
    case Algorithm::kCollNetChain:
      return c.graphs.collnet;
    case Algorithm::kNvls:
    case Algorithm::kNvlsTree:
      return c.graphs.nvls;
    default:
      return c.graphs.ring;
  }
}

// Which (algorithm, protocol) pairs NCCL enables for this collective and group.
bool available(const Context& c, Algorithm a, Protocol p) {
  if (graph_of(c, a).channels == 0) return false;
  // LL128 is on by default only with NVLink inside the node (and a PXN-or-closer NIC path).
  if (p == Protocol::kLL128 && c.intra != HwLink::kNvLink) return false;
  bool multi = c.topo.nodes > 1;
  switch (a) {
    case Algorithm::kRing:
      return true;
    case Algorithm::kTree:
      return c.all_reduce;
    case Algorithm::kCollNetDirect:
      if (p != Protocol::kSimple || !(c.all_reduce || c.ag_rs)) return false;
      // AllGather/ReduceScatter need a NIC per local GPU.
      return c.all_reduce ||
             local_nics(c.hw.node, c.topo.max_ranks_per_node) >= c.topo.max_ranks_per_node;
    case Algorithm::kCollNetChain:
      return p == Protocol::kSimple && c.all_reduce;
    case Algorithm::kNvls:
      // Across nodes NVLS needs CollNet (SHARP) for the network part.
      return p == Protocol::kSimple && (c.all_reduce || c.ag_rs) && (!multi || c.hw.nccl.collnet);
    case Algorithm::kNvlsTree:
      return p == Protocol::kSimple && c.all_reduce && multi;
    case Algorithm::kPat:
      return p == Protocol::kSimple && c.ag_rs && c.k.has_pat && c.topo.max_ranks_per_node == 1;
    default:
      return false;
  }
}

// An algorithm bandwidth (GB/s) before the run-time tree correction, and what bounds it.
struct Bandwidth {
  double algbw = 0;
  Bottleneck bottleneck = Bottleneck::kIntra;
};

Bandwidth algorithm_bandwidth(const Context& c, Algorithm a, Protocol p) {
  const NcclGraph& g = graph_of(c, a);
  const int nch = g.channels;
  const double ppn = static_cast<double>(c.topo.ranks) / c.topo.nodes;
  const bool collnet = a == Algorithm::kCollNetDirect || a == Algorithm::kCollNetChain;
  double bw = (c.topo.nodes <= 2 || collnet) ? g.bw_intra : g.bw_inter;
  double bus = nch * bw;
  const int arch = c.arch;
  const int s = c.scale;
  // Multi-node ring and tree graphs take their per-channel speed from the NIC path.
  Bottleneck bottleneck = c.topo.nodes > 1 ? Bottleneck::kNetwork : Bottleneck::kIntra;

  if (a == Algorithm::kNvls || a == Algorithm::kNvlsTree) {
    double local = c.topo.min_ranks_per_node;
    double intra_bw = g.bw_intra * c.k.nvls_efficiency[arch] * (nch - 1) / nch;
    intra_bw *= c.all_reduce ? 2.0 : (local - 1) / local;
    double per_ch = intra_bw;
    double inter_bw = intra_bw;
    if (a == Algorithm::kNvls && c.topo.nodes > 1) inter_bw = g.bw_inter;
    if (a == Algorithm::kNvlsTree) inter_bw = g.bw_inter * (c.topo.nodes == 2 ? 2.0 : 1.0);
    per_ch = std::min(per_ch, inter_bw);
    if (a == Algorithm::kNvlsTree) {
      double cap = c.k.nvls_tree_cap[arch][s];
      if (cap > 0) per_ch = std::min(per_ch, cap);
    }
    bottleneck =
        inter_bw < intra_bw && per_ch == inter_bw ? Bottleneck::kNetwork : Bottleneck::kIntra;
    bus = nch * per_ch;
  }
  if (a == Algorithm::kRing && p == Protocol::kLL) bus = std::min(c.ll_max, bus * 0.5);
  if (a == Algorithm::kRing && p == Protocol::kLL128) {
    bus = std::min(bus * 0.92, nch * c.k.ring_ll128_cap[arch][s]);
  }
  if (a == Algorithm::kTree) bus = std::min(bus * 0.92, nch * c.k.tree_cap[arch][s]);
  if (a == Algorithm::kTree && p == Protocol::kLL) bus = std::min(bus / 3.8, c.ll_max);
  if (a == Algorithm::kTree && p == Protocol::kLL128) {
    bus = std::min(bus * (c.topo.nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                   nch * c.k.tree_ll128_cap[arch][s]);
  }
  if (a == Algorithm::kPat) bus *= 0.75;
  if (a == Algorithm::kCollNetDirect) {
    if (c.ag_rs) {
      bus = ppn * std::min(g.bw_intra, 0.9 * g.bw_inter);
    } else {
      double f = ppn / nch;  // GPU:NIC ratio
      bus /= (f - (f - 1) / 2);
      if (c.hw.gpu.arch >= GpuArch::kHopper) bus *= 0.85;
    }
  }

  // Bus bandwidth -> algorithm bandwidth.
  bool no_conversion = c.ag_rs && a != Algorithm::kRing;
  if (no_conversion) return {bus, bottleneck};
  if (a == Algorithm::kRing || a == Algorithm::kNvls || a == Algorithm::kNvlsTree) {
    return {bus * c.topo.ranks / c.nsteps, bottleneck};
  }
  return {bus * 0.5, bottleneck};  // Tree, CollNet (all_reduce)
}

double latency(const Context& c, Algorithm a, Protocol p) {
  const int ai = static_cast<int>(a);
  const int pi = static_cast<int>(p);
  const int intra = static_cast<int>(c.intra);
  const int net = static_cast<int>(HwLink::kNet);
  const int m = c.topo.nodes;
  const int ppn = c.topo.ranks_per_node();
  const int log2m = log2_floor(m);
  double intra_lat = c.k.hw_latency_us[intra][ai][pi];
  // With one rank per node the latencies are fully exposed: use the Tree network latency.
  double inter_lat = c.topo.max_ranks_per_node == 1 ? c.k.hw_latency_us[net][kTree][pi]
                                                    : c.k.hw_latency_us[net][ai][pi];
  double lat = c.k.base_latency_us[ai][pi];
  switch (a) {
    case Algorithm::kRing: {
      if (c.coll == Collective::kBroadcast || c.coll == Collective::kReduce) {
        int level = m == 1 ? intra : net;
        if (c.graphs.same_channels) return lat + c.k.hw_latency_us[level][kRing][pi];
        int row = p == Protocol::kSimple ? kTree : kRing;
        return lat + c.nsteps * c.k.hw_latency_us[level][row][pi];
      }
      int n_inter = m == 1 ? 0 : (c.all_reduce ? 2 * (m - 1) : m - 1);
      double overhead = 0;
      if (m > 1) overhead = net_overhead_us(c.hw.node.cpu_vendor) * (pi == kSimple ? 3.0 : 1.0);
      intra_lat = std::max(intra_lat, overhead);
      return lat + (c.nsteps - n_inter) * intra_lat + n_inter * inter_lat;
    }
    case Algorithm::kTree:
      return lat + 2 * ((ppn - 1) * intra_lat + log2m * inter_lat);
    case Algorithm::kCollNetDirect:
      return lat + 2 * (std::min(1, ppn - 1) * intra_lat + (ppn - 1) * 0.4) + inter_lat;
    case Algorithm::kCollNetChain:
      return lat + 2 * (ppn - 1) * intra_lat + inter_lat;
    case Algorithm::kNvls:
      return intra_lat + (m > 1 ? inter_lat : 0.0);  // the base latency is replaced
    case Algorithm::kNvlsTree:
      return lat + intra_lat + 2 * log2m * inter_lat;
    case Algorithm::kPat:
      return lat + log2m * inter_lat / 3.5 + 2.8 * c.topo.ranks;
    default:
      return lat;
  }
}

// treeCorrectionFactor for a size bucket (1 outside the table).
double tree_factor(const Context& c, Protocol p, int bucket) {
  if (bucket < 0 || bucket >= 24) return 1.0;
  return c.k.tree_correction[static_cast<int>(p)][bucket];
}

Candidate evaluate(const Context& c, Algorithm a, Protocol p, std::int64_t bytes) {
  const Bandwidth peak = algorithm_bandwidth(c, a, p);
  const double bw = peak.algbw;
  double lat = latency(c, a, p);
  bool corrected =
      c.all_reduce && (a == Algorithm::kTree || (a == Algorithm::kNvlsTree && c.arch == 3 &&
                                                 c.hw.node.cpu_vendor != CpuVendor::kArm));
  if (a == Algorithm::kRing && p == Protocol::kSimple && c.all_reduce && c.topo.nodes > 1 &&
      static_cast<double>(bytes) /
              (static_cast<double>(c.graphs.runtime_channels) * c.topo.ranks) >=
          64.0) {
    lat *= c.hw.gpu.arch >= GpuArch::kAmpere ? 1.4 : 1.9;  // plateau effect of rings
  }
  double b = static_cast<double>(bytes);
  double used_bw = bw;
  double time = 0;
  if (corrected) {
    int bucket = log2_floor(bytes >> 6);
    used_bw = bw * tree_factor(c, p, bucket);
    time = lat + b / (1000.0 * used_bw);
    // Monotone envelope: never more than the next bucket's first size costs.
    double next_factor = tree_factor(c, p, bucket + 1);
    if (next_factor > tree_factor(c, p, bucket)) {
      double next_size = 64.0 * static_cast<double>(std::int64_t{1} << (bucket + 1));
      time = std::min(time, lat + next_size / (1000.0 * bw * next_factor));
    }
  } else {
    time = lat + b / (1000.0 * bw);
  }
  return {a, p, lat, used_bw, time, bw, peak.bottleneck};
}

}  // namespace

bool is_tuned(Collective collective) {
  switch (collective) {
    case Collective::kAllReduce:
    case Collective::kAllGather:
    case Collective::kReduceScatter:
    case Collective::kBroadcast:
    case Collective::kReduce:
      return true;
    default:
      return false;
  }
}

CandidateList nccl_candidates(const HardwareProfile& profile, NcclVersion version,
                              Collective collective, std::int64_t bytes,
                              const GroupTopology& topology) {
  Context c = make_context(profile, version, collective, topology);
  CandidateList out;
  for (int a = 0; a < kNumNcclAlgorithms; ++a) {
    if (!c.all_reduce && !c.ag_rs && a != kRing) continue;  // broadcast/reduce: Ring only
    for (int p = 0; p < kNumProtocols; ++p) {
      auto alg = static_cast<Algorithm>(a);
      auto proto = static_cast<Protocol>(p);
      if (!available(c, alg, proto)) continue;
      Candidate cand = evaluate(c, alg, proto, bytes);
      if (!(cand.algbw_gbyte_per_s > 0)) continue;
      out.items[static_cast<std::size_t>(out.size++)] = cand;
    }
  }
  return out;
}

const Candidate& select_candidate(const CandidateList& list) {
  const Candidate* best = list.begin();
  for (const Candidate& c : list) {
    if (c.time_us < best->time_us) best = &c;
  }
  return *best;
}

}  // namespace dtplan::cost
