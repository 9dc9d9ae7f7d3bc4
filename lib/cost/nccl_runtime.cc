#include "cost/nccl_runtime.h"

#include <algorithm>
#include <bit>

namespace dtplan::cost {

namespace {

using collective::Collective;

// NCCL's run-time constants (src/include/device.h, src/enqueue.cc, src/transport/nvls.cc at the
// 2.2x releases; docs/model.md lists them with their files).
constexpr int kWarp = 32;
constexpr int kNcclSteps = 8;           // NCCL_STEPS: buffer slots per connection
constexpr int kMaxThreads = 640;        // NCCL_MAX_NTHREADS
constexpr int kSimpleMaxThreads = 512;  // NCCL_SIMPLE_MAX_NTHREADS
constexpr int kLlMaxThreads = 512;      // NCCL_LL_MAX_NTHREADS
constexpr int kLl128MaxThreads = 640;   // NCCL_LL128_MAX_NTHREADS
constexpr int kLlThreshold = 8;         // NCCL_LL_THREAD_THRESHOLD (x ranks for Ring/LL)
constexpr int kLl128Threshold = 8;      // NCCL_LL128_THREAD_THRESHOLD
constexpr int kSimpleThreshold = 64;    // NCCL_SIMPLE_THREAD_THRESHOLD
// Per-connection buffers (NCCL_BUFFSIZE default; LL: lines per thread x threads x steps x 16 B;
// LL128: elements per thread x threads x steps x 8 B), split into NCCL_STEPS steps.
constexpr std::int64_t kSimpleBuffer = std::int64_t{1} << 22;
constexpr std::int64_t kLlBuffer = std::int64_t{8} * kLlMaxThreads * kNcclSteps * 16;
constexpr std::int64_t kLl128Buffer = std::int64_t{120} * kLl128MaxThreads * kNcclSteps * 8;
constexpr int kRingChunkSteps = kNcclSteps / 2;  // ALLREDUCE/ALLGATHER/REDUCESCATTER_CHUNKSTEPS
constexpr std::int32_t kNvlsChannels = 16;       // NCCL_NVLS_NCHANNELS
constexpr std::int64_t kNvlsChunk = 128 * 1024;  // NCCL_NVLS_CHUNKSIZE
constexpr std::int64_t kMinNvlsChunk = 16 * 1024;

// Bytes per grain of a protocol's chunk (ncclProtoGrainSize).
std::int64_t grain(Protocol p) {
  switch (p) {
    case Protocol::kLL:
      return 16;
    case Protocol::kLL128:
      return 1920;  // a warp's 32 x 8 shared words, in lines of 15 data words of 8 bytes
    default:
      return 512;
  }
}

int log2_floor(std::int64_t v) {
  return v <= 0 ? 0 : 63 - std::countl_zero(static_cast<std::uint64_t>(v));
}

bool nvls_family(Algorithm a) { return a == Algorithm::kNvls || a == Algorithm::kNvlsTree; }

// NCCL's comm->maxThreads for a pair (ncclTopoTuneModel).
int max_threads(Algorithm a, Protocol p, const NcclGraphs& graphs) {
  if (nvls_family(a) || a == Algorithm::kCollNetDirect || a == Algorithm::kCollNetChain) {
    return kMaxThreads;
  }
  switch (p) {
    case Protocol::kLL:
      return kLlMaxThreads;
    case Protocol::kLL128:
      return kLl128MaxThreads;
    default:
      // Rings on a graph no faster than one PCIe Gen3 link get half the Simple threads.
      if (a == Algorithm::kRing && graphs.ring.channels * graphs.ring.bw_intra <= 12.0) {
        return kSimpleMaxThreads / 2;
      }
      return kSimpleMaxThreads;
  }
}

int thread_threshold(Algorithm a, Protocol p, std::int32_t ranks) {
  switch (p) {
    case Protocol::kLL:
      return a == Algorithm::kRing ? kLlThreshold * ranks : kLlThreshold;
    case Protocol::kLL128:
      return kLl128Threshold;
    default:
      return kSimpleThreshold;
  }
}

// The step size of a protocol's buffer and the chunk a pair starts from (calcCollChunking).
std::int64_t base_chunk(Algorithm a, Protocol p, Collective coll) {
  switch (p) {
    case Protocol::kLL:
      return kLlBuffer / kNcclSteps / 2;  // half of each LL line is flags
    case Protocol::kLL128:
      return kLl128Buffer / kNcclSteps / 16 * 15;  // 120 of every 128 bytes are data
    default: {
      std::int64_t step = kSimpleBuffer / kNcclSteps;
      bool ring_steps =
          a == Algorithm::kRing && coll != Collective::kBroadcast && coll != Collective::kReduce;
      return ring_steps ? step * kRingChunkSteps : step;
    }
  }
}

struct Inputs {
  const HardwareProfile& hw;
  Collective coll;
  std::int64_t bytes;
  const GroupTopology& topo;
  const NcclGraphs& graphs;
  const Candidate& cand;
};

// The chunk NCCL uses for the pair at this size on `nc` channels (calcCollChunking).
std::int64_t chunk_bytes(const Inputs& in, std::int32_t nc) {
  const Algorithm a = in.cand.algorithm;
  const Protocol p = in.cand.protocol;
  const auto s = static_cast<std::uint64_t>(in.bytes);
  std::int64_t chunk = base_chunk(a, p, in.coll);
  if (nvls_family(a)) {
    const std::uint64_t ops = static_cast<std::uint64_t>(nc) * in.topo.min_ranks_per_node;
    if (a == Algorithm::kNvls) {
      std::int64_t max_chunk = kNvlsChunk;
      if (in.topo.nodes > 1 && in.cand.peak_algbw_gbyte_per_s < 150.0) max_chunk = 32 * 1024;
      chunk = std::min(chunk, max_chunk);
      if (s < 64 * ops * chunk && chunk > 65536) chunk = 65536;
      if (s < 8 * ops * chunk && chunk > 32768) chunk = 32768;
      if (s < 2 * ops * chunk && chunk > 16384) chunk = 16384;
    } else {
      chunk = in.topo.nodes >= 4 ? 65536 : kNvlsChunk;  // NCCL_NVLSTREE_MAX_CHUNKSIZE default
      if (s < 4 * ops * chunk && chunk > 65536) chunk = 65536;
      if (s < ops * chunk && chunk > 32768) chunk = 32768;
    }
  } else if (a == Algorithm::kTree && p == Protocol::kLL128) {
    const double ppn = static_cast<double>(in.topo.ranks) / in.topo.nodes;
    const double steps = 1 + log2_floor(in.topo.nodes) + 0.1 * ppn;
    auto loops = [&] { return static_cast<double>(s / (static_cast<std::uint64_t>(nc) * chunk)); };
    while (loops() < steps * 64 / ppn && chunk > 131072) chunk /= 2;
    while (loops() < steps * 16 / ppn && chunk > 32768) chunk /= 2;
  } else if (a == Algorithm::kPat) {
    const std::uint64_t per = in.coll == Collective::kAllGather ? 32 : 16;
    while (static_cast<std::uint64_t>(chunk) * nc * per > s && chunk > 65536) chunk /= 2;
  }
  return chunk / grain(p) * grain(p);
}

// The NVLS pipeline fill in bytes at algbw: min(n, D) - 1 chunk times of a channel with n chunks,
// written as min(S, D nc c) - nc c. Taken as the largest over the chunk sizes NCCL would use up to
// this size, so that a larger chunk at a threshold never makes the fill smaller.
double nvls_fill_bytes(double s, std::int32_t nc, std::int64_t chunk) {
  double best = 0;
  for (std::int64_t c = chunk; c >= kMinNvlsChunk; c /= 2) {
    double window = static_cast<double>(nc) * static_cast<double>(c);
    best = std::max(best, std::min(s, kNvlsPipelineChunks * window) - window);
  }
  return best;
}

// A tree's hops: up and down the chain of the node's ranks and the inter-node binary tree (the
// count NCCL's tree latency uses).
int tree_hops(const GroupTopology& t) { return 2 * (t.ranks_per_node() - 1 + log2_floor(t.nodes)); }

}  // namespace

RuntimeShape runtime_shape(const HardwareProfile& profile, Collective collective,
                           std::int64_t bytes, const GroupTopology& topology,
                           const NcclGraphs& graphs, const Candidate& candidate) {
  const Algorithm a = candidate.algorithm;
  const Protocol p = candidate.protocol;
  const Inputs in{profile, collective, bytes, topology, graphs, candidate};
  std::int32_t nc = std::max(graphs.runtime_channels, 1);
  int nt = max_threads(a, p, graphs);
  if (nvls_family(a)) {
    // NVLS needs no more than nvlsChannels for peak bandwidth; across nodes (with CollNet) it
    // is also bounded by the communicator's channels.
    nc =
        (a == Algorithm::kNvls && topology.nodes > 1) ? std::min(kNvlsChannels, nc) : kNvlsChannels;
  } else {
    const auto s = static_cast<std::uint64_t>(bytes);
    const auto threshold = static_cast<std::uint64_t>(thread_threshold(a, p, topology.ranks));
    while (s < static_cast<std::uint64_t>(nc) * nt * threshold && nc >= 2) --nc;
    if (a != Algorithm::kCollNetDirect) {
      while (s < static_cast<std::uint64_t>(nc) * nt * threshold && nt % 128 == 0) nt /= 2;
    }
  }
  if (p == Protocol::kSimple && a == Algorithm::kRing) nt += kWarp;  // the sync warp
  if (p == Protocol::kSimple && a == Algorithm::kTree) nt += 4 * kWarp;
  nt = std::max(nt, 3 * kWarp);
  if (a == Algorithm::kTree || a == Algorithm::kPat) nt = kMaxThreads;
  return {nc, nt, chunk_bytes(in, nc)};
}

Achieved achieve(const HardwareProfile& profile, Collective collective, std::int64_t bytes,
                 const GroupTopology& topology, const NcclGraphs& graphs,
                 const Candidate& candidate) {
  Achieved out;
  out.latency_us = candidate.latency_us;
  if (candidate.algorithm == Algorithm::kP2p) {  // priced whole by nccl_p2p.h
    out.bandwidth_us = candidate.time_us - candidate.latency_us;
    out.time_us = candidate.time_us;
    return out;
  }
  out.shape = runtime_shape(profile, collective, bytes, topology, graphs, candidate);
  double algbw = candidate.peak_algbw_gbyte_per_s;
  if (candidate.bottleneck == Bottleneck::kNetwork)
    algbw *= nic_efficiency(profile, topology.nodes);
  const double rate = 1000.0 * algbw;  // bytes per us
  const auto s = static_cast<double>(bytes);
  const std::int32_t nc = out.shape.channels;
  const auto chunk = static_cast<double>(out.shape.chunk_bytes);
  if (nvls_family(candidate.algorithm)) {
    out.fill_us = nvls_fill_bytes(s, nc, out.shape.chunk_bytes) / rate;
  } else if (candidate.algorithm == Algorithm::kTree) {
    // A chain: the last chunk leaves (hops - 1) chunk crossings after the first arrived; a
    // crossing moves one chunk at the channel's share of the bus bandwidth (2 x algbw).
    const double crossing = std::min(static_cast<double>(nc) * chunk, s) / (2.0 * rate);
    out.fill_us = std::max(0, tree_hops(topology) - 1) * crossing;
  }
  out.bandwidth_us = s / rate + out.fill_us;
  out.time_us = out.latency_us + out.bandwidth_us;
  return out;
}

}  // namespace dtplan::cost
