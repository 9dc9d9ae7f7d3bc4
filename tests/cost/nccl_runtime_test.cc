#include "cost/nccl_runtime.h"

#include <doctest/doctest.h>

#include "cost/nccl_graph.h"
#include "cost/nccl_model.h"
#include "support/profiles.h"

namespace dtplan::cost {
namespace {

using collective::Collective;
using testing::profile;

struct Pair {
  HardwareProfile hw;
  GroupTopology topo;
  Collective coll;
  std::int64_t bytes;
  Candidate cand;
};

// The tuner's candidate (algorithm, protocol) for a collective on `topo` at `bytes`.
Pair pair(const HardwareProfile& hw, GroupTopology topo, Collective coll, std::int64_t bytes,
          Algorithm a, Protocol p) {
  auto list = NcclModel(hw).candidates(coll, bytes, topo);
  REQUIRE(list.ok());
  for (const Candidate& c : list.value()) {
    if (c.algorithm == a && c.protocol == p) return {hw, topo, coll, bytes, c};
  }
  FAIL("no such candidate");
  return {hw, topo, coll, bytes, {}};
}

RuntimeShape shape_of(const Pair& x) {
  return runtime_shape(x.hw, x.coll, x.bytes, x.topo, nccl_graphs(x.hw, x.topo), x.cand);
}

Achieved run_of(const Pair& x) {
  return achieve(x.hw, x.coll, x.bytes, x.topo, nccl_graphs(x.hw, x.topo), x.cand);
}

// The launch of an all_reduce pair, as a function of the size.
auto all_reduce_shapes(const HardwareProfile& hw, GroupTopology topo, Algorithm a, Protocol p) {
  return [=](std::int64_t bytes) {
    return shape_of(pair(hw, topo, Collective::kAllReduce, bytes, a, p));
  };
}

TEST_CASE("nccl runtime: rings and trees lower channels, then threads, for small messages") {
  // One DGX H100: 24 run-time channels; Ring/LL uses 512 threads and 8 x 8 ranks = 64 bytes per
  // thread before it adds a channel, so one channel carries 32 KiB.
  HardwareProfile h100 = profile("h100-dgx");
  GroupTopology one = uniform_topology(1, 8);
  auto ll = all_reduce_shapes(h100, one, Algorithm::kRing, Protocol::kLL);
  CHECK(ll(std::int64_t{1} << 20).channels == 24);
  CHECK(ll(std::int64_t{1} << 20).threads == 512);
  CHECK(ll(256 * 1024).channels == 8);  // 256 KiB / 32 KiB
  CHECK(ll(256 * 1024 - 1).channels == 7);
  // 8 bytes: one channel; threads halve from 512 while 8 < nt x 64 and nt is a multiple of 128,
  // to 64, then the three-warp floor: 96.
  CHECK(ll(8).channels == 1);
  CHECK(ll(8).threads == 96);
  // Ring/Simple at 1 MiB: 24 x 512 x 64 = 768 KiB fits, so every channel, plus the sync warp.
  RuntimeShape simple = shape_of(
      pair(h100, one, Collective::kAllReduce, 1 << 20, Algorithm::kRing, Protocol::kSimple));
  CHECK(simple.channels == 24);
  CHECK(simple.threads == 544);
}

TEST_CASE("nccl runtime: NVLS runs on 16 channels with NCCL's size-dependent chunk") {
  // 8 heads x 16 channels = 128 concurrent chunks; 128 KiB chunks from 64 x 128 x 128 KiB = 1 GiB,
  // 64 KiB from 8 x 128 x 64 KiB = 64 MiB, 32 KiB from 2 x 128 x 32 KiB = 8 MiB, else 16 KiB.
  HardwareProfile h100 = profile("h100-dgx");
  GroupTopology one = uniform_topology(1, 8);
  auto nvls = all_reduce_shapes(h100, one, Algorithm::kNvls, Protocol::kSimple);
  const std::int64_t mib = std::int64_t{1} << 20;
  CHECK(nvls(4 * mib).channels == 16);
  CHECK(nvls(4 * mib).threads == 640);
  CHECK(nvls(8 * mib - 1).chunk_bytes == 16384);
  CHECK(nvls(8 * mib).chunk_bytes == 32768);
  CHECK(nvls(64 * mib - 1).chunk_bytes == 32768);
  CHECK(nvls(64 * mib).chunk_bytes == 65536);
  CHECK(nvls(1024 * mib - 1).chunk_bytes == 65536);
  CHECK(nvls(1024 * mib).chunk_bytes == 131072);
  // NVLSTree on 2 nodes: 32 KiB below 128 x 64 KiB = 8 MiB, 64 KiB below 4 x 128 x 128 KiB.
  GroupTopology two = uniform_topology(2, 8);
  auto tree = all_reduce_shapes(h100, two, Algorithm::kNvlsTree, Protocol::kSimple);
  CHECK(tree(8 * mib - 1).chunk_bytes == 32768);
  CHECK(tree(8 * mib).chunk_bytes == 65536);
  CHECK(tree(64 * mib).chunk_bytes == 131072);
  // From 4 nodes NCCL caps the NVLSTree chunk at 64 KiB.
  auto four = shape_of(pair(h100, uniform_topology(4, 8), Collective::kAllReduce, 1024 * mib,
                            Algorithm::kNvlsTree, Protocol::kSimple));
  CHECK(four.chunk_bytes == 65536);
}

TEST_CASE("nccl runtime: NVLS pays min(n, D) - 1 chunk times of pipeline fill") {
  // 2 MiB on one DGX H100: 16 KiB chunks on 16 channels, n = 8 chunks per channel < D = 20, so
  // the fill is 7 chunk times = (2 MiB - 16 x 16 KiB) at NVLS's algbw 476 x 8 / 14 = 272 GB/s.
  Pair x = pair(profile("h100-dgx"), uniform_topology(1, 8), Collective::kAllReduce,
                2 * 1024 * 1024, Algorithm::kNvls, Protocol::kSimple);
  Achieved a = run_of(x);
  const double rate = 272.0 * 1000;  // bytes per us
  CHECK(a.latency_us == doctest::Approx(25.0));
  CHECK(a.fill_us == doctest::Approx((2097152.0 - 16 * 16384) / rate));
  CHECK(a.bandwidth_us == doctest::Approx(2097152.0 / rate + a.fill_us));
  CHECK(a.time_us == doctest::Approx(a.latency_us + a.bandwidth_us));
  // 1 GiB: n = 512 chunks of 128 KiB > D, so the fill is D - 1 = 19 chunk times.
  x.bytes = std::int64_t{1} << 30;
  CHECK(run_of(x).fill_us == doctest::Approx(19 * 16 * 131072.0 / rate));
}

TEST_CASE("nccl runtime: a tree's fill is its hops minus one chunk crossing") {
  // Tree/LL128 on 2 nodes x 8 at 1 MiB: NCCL halves the 576000-byte LL128 chunk while the
  // channel's loops fall short of (1 + log2 2 + 0.8) x 64 / 8 and then x 16 / 8: 18000, on the
  // 1920-byte grain 17280. 16 hops (2 x (7 + 1)); a crossing moves 16 x 17280 bytes at the bus
  // rate 2 x 146.8 GB/s.
  Pair x = pair(profile("h100-dgx"), uniform_topology(2, 8), Collective::kAllReduce, 1 << 20,
                Algorithm::kTree, Protocol::kLL128);
  Achieved a = run_of(x);
  CHECK(a.shape.channels == 16);
  CHECK(a.shape.chunk_bytes == 17280);
  const double algbw = 8 * 36.7 / 2;  // 8 channels x the LL128 tree cap, halved for trees
  CHECK(x.cand.peak_algbw_gbyte_per_s == doctest::Approx(algbw));
  CHECK(a.fill_us == doctest::Approx(15 * 16 * 17280.0 / (2 * algbw * 1000)));
  CHECK(a.time_us == doctest::Approx(48.5 + 1048576.0 / (algbw * 1000) + a.fill_us));
  // NCCL's own estimate applies its tree correction (0.6 at 1 MiB) instead: 60.4 us.
  CHECK(x.cand.time_us == doctest::Approx(48.5 + 1048576.0 / (algbw * 600)));
}

TEST_CASE("nccl runtime: rings have no fill; the fabric factor slows network-bound pairs only") {
  HardwareProfile h100 = profile("h100-dgx");
  GroupTopology four = uniform_topology(4, 8);
  const std::int64_t gib = std::int64_t{1} << 30;
  Pair ring = pair(h100, four, Collective::kAllGather, gib, Algorithm::kRing, Protocol::kSimple);
  Achieved plain = run_of(ring);
  CHECK(plain.fill_us == 0);
  CHECK(plain.time_us == doctest::Approx(ring.cand.time_us));  // NCCL's estimate
  CHECK(ring.cand.bottleneck == Bottleneck::kNetwork);
  ring.hw.fabric.nic_efficiency_at_scale = 0.8;
  CHECK(run_of(ring).bandwidth_us == doctest::Approx(plain.bandwidth_us / 0.8));
  // NVLSTree on 2 nodes is bound by NVLS inside the node, not by the NICs.
  Pair nvls = pair(h100, uniform_topology(2, 8), Collective::kAllReduce, gib, Algorithm::kNvlsTree,
                   Protocol::kSimple);
  CHECK(nvls.cand.bottleneck == Bottleneck::kIntra);
  Achieved before = run_of(nvls);
  nvls.hw.fabric.nic_efficiency = 0.5;
  CHECK(run_of(nvls) == before);
}

TEST_CASE("nccl runtime: the model prices NCCL's pick at what it achieves") {
  // 8 MiB on 2 nodes x 8: NCCL's estimate prefers NVLSTree (100.9 us against Ring/LL128's
  // 128.8); with its pipeline fill NVLSTree achieves 132.8 us, a little more than the ring
  // would. NCCL runs NVLSTree, so the model prices NVLSTree at 132.8 us.
  HardwareProfile h100 = profile("h100-dgx");
  NcclModel model(h100);
  GroupTopology two = uniform_topology(2, 8);
  const std::int64_t bytes = 8 << 20;
  const CandidateList list = model.candidates(Collective::kAllReduce, bytes, two).value();
  const Candidate& nccl = select_candidate(list);
  CHECK(nccl.algorithm == Algorithm::kNvlsTree);
  const Achieved nvls_tree =
      achieve(h100, Collective::kAllReduce, bytes, two, nccl_graphs(h100, two), nccl);
  const Achieved ring =
      run_of(pair(h100, two, Collective::kAllReduce, bytes, Algorithm::kRing, Protocol::kLL128));
  CHECK(ring.time_us < nvls_tree.time_us);
  CHECK(nccl.time_us < ring.time_us);
  auto got = model.cost(Collective::kAllReduce, bytes, two).value();
  CHECK(got.algorithm == Algorithm::kNvlsTree);
  CHECK(got.protocol == Protocol::kSimple);
  CHECK(got.channels == 16);
  CHECK(got.time_us == doctest::Approx(nvls_tree.time_us));
  CHECK(got.time_us == doctest::Approx(got.latency_us + got.bandwidth_us));
}

TEST_CASE("nccl runtime: a size is never priced above a larger size NCCL runs faster") {
  // 9 nodes x 7 A100: where NCCL's pick changes from Tree to Ring, the tree's pipeline fill makes
  // the sizes just below the switch run slower than the switch size itself. Those sizes keep
  // NCCL's pick (what runs, and so the reduction order) but are priced at the larger size's time
  // (the collective can be padded).
  HardwareProfile a100 = profile("a100-dgx");
  NcclModel model(a100);
  const GroupTopology t = uniform_topology(9, 7);
  const NcclGraphs graphs = nccl_graphs(a100, t);
  int padded = 0;
  for (double s = 1024; s < 1e10; s *= 1.37) {
    const auto bytes = static_cast<std::int64_t>(s);
    CAPTURE(bytes);
    const CandidateList list = model.candidates(Collective::kAllReduce, bytes, t).value();
    const Candidate& nccl = select_candidate(list);
    const double own = achieve(a100, Collective::kAllReduce, bytes, t, graphs, nccl).time_us;
    const CollectiveCost got = model.cost(Collective::kAllReduce, bytes, t).value();
    CHECK(got.algorithm == nccl.algorithm);
    CHECK(got.protocol == nccl.protocol);
    CHECK(got.time_us <= own);
    if (got.time_us < own) ++padded;
  }
  CHECK(padded > 0);
}

}  // namespace
}  // namespace dtplan::cost
