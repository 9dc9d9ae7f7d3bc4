#include "cost/nccl_tuning.h"

#include <doctest/doctest.h>

#include "cost/nccl_graph.h"
#include "cost/nccl_model.h"
#include "support/profiles.h"

namespace dtplan::cost {
namespace {

using collective::Collective;
using testing::profile;

const Candidate* find(const CandidateList& list, Algorithm a, Protocol p) {
  for (const Candidate& c : list) {
    if (c.algorithm == a && c.protocol == p) return &c;
  }
  return nullptr;
}

TEST_CASE("nccl tuning: NCCL's printed 25.2 us for a small all_reduce on 3 nodes x 8 H100") {
  // NVIDIA/nccl#1453: "256 Bytes -> Algo 0 proto 0 time 25.229528" and "512 Bytes -> ... time
  // 25.259054" (Algo 0 = Tree, proto 0 = LL) on 3 nodes of 8 H100. The latency is
  // 6.8 + 2 x (7 x 0.6 + floor(log2 3) x 5.0) = 25.2 us in every release from 2.18 on.
  for (NcclVersion v :
       {NcclVersion::k2_18, NcclVersion::k2_21, NcclVersion::k2_23, NcclVersion::k2_28}) {
    HardwareProfile h100 = profile("h100-dgx");
    h100.nccl.version = v;
    NcclModel model(h100);
    // NCCL's estimate (its tuner's pick over the candidates)...
    const CandidateList small_list =
        model.candidates(Collective::kAllReduce, 256, uniform_topology(3, 8)).value();
    const Candidate& small = select_candidate(small_list);
    CHECK(small.algorithm == Algorithm::kTree);
    CHECK(small.protocol == Protocol::kLL);
    CHECK(small.latency_us == doctest::Approx(25.2).epsilon(1e-12));
    CHECK(std::abs(small.time_us - 25.229528) < 0.1);
    const CandidateList larger_list =
        model.candidates(Collective::kAllReduce, 512, uniform_topology(3, 8)).value();
    const Candidate& larger = select_candidate(larger_list);
    CHECK(larger.algorithm == Algorithm::kTree);
    CHECK(std::abs(larger.time_us - 25.259054) < 0.1);
    // ...and the model's price: the same pair and latency, plus the tree's pipeline fill.
    auto priced = model.cost(Collective::kAllReduce, 256, uniform_topology(3, 8));
    REQUIRE(priced.ok());
    CHECK(priced.value().algorithm == Algorithm::kTree);
    CHECK(priced.value().protocol == Protocol::kLL);
    CHECK(priced.value().latency_us == doctest::Approx(25.2).epsilon(1e-12));
    CHECK(priced.value().time_us >= small.time_us);
    CHECK(priced.value().time_us < small.time_us + 0.5);
  }
}

TEST_CASE("nccl tuning: AutoParallel's NCCL 2.27 table for all_gather on 8 nodes x 1 H100") {
  // docs/reference/strategy_selection.md §3.3: the (8 nodes, ppn 1) AG/RS row, from NCCL 2.27.5
  // tuning logs: LL (41.6 us, 23.3 GB/s), LL128 (73.5, 50.5), Simple (106.4, 54.9).
  NcclModel model(profile("h100-dgx"));
  auto list = model.candidates(Collective::kAllGather, 1 << 20, uniform_topology(8, 1));
  REQUIRE(list.ok());
  const Candidate* ll = find(list.value(), Algorithm::kRing, Protocol::kLL);
  const Candidate* ll128 = find(list.value(), Algorithm::kRing, Protocol::kLL128);
  const Candidate* simple = find(list.value(), Algorithm::kRing, Protocol::kSimple);
  REQUIRE(ll != nullptr);
  REQUIRE(ll128 != nullptr);
  REQUIRE(simple != nullptr);
  CHECK(ll->latency_us == doctest::Approx(41.6));
  CHECK(ll->algbw_gbyte_per_s == doctest::Approx(23.3).epsilon(0.002));
  CHECK(ll128->latency_us == doctest::Approx(73.5));
  CHECK(ll128->algbw_gbyte_per_s == doctest::Approx(50.5).epsilon(0.002));
  CHECK(simple->latency_us == doctest::Approx(106.4));
  CHECK(simple->algbw_gbyte_per_s == doctest::Approx(54.9).epsilon(0.002));
  // PAT (2.23+, one GPU per node): 8 + 3 x 14 / 3.5 + 2.8 x 8 = 42.4 us, 0.75 x 48 GB/s.
  const Candidate* pat = find(list.value(), Algorithm::kPat, Protocol::kSimple);
  REQUIRE(pat != nullptr);
  CHECK(pat->latency_us == doctest::Approx(42.4));
  CHECK(pat->algbw_gbyte_per_s == doctest::Approx(36.0));
}

TEST_CASE("nccl tuning: single-node latencies and bandwidths of DGX H100") {
  NcclModel model(profile("h100-dgx"));
  auto list = model.candidates(Collective::kAllReduce, 8, uniform_topology(1, 8)).value();
  // Ring/LL: 6.6 + 14 x 0.6 = 15.0 us (the reference's "NCCL model says 15 us").
  CHECK(find(list, Algorithm::kRing, Protocol::kLL)->latency_us == doctest::Approx(15.0));
  // Ring/Simple: 8.4 + 14 x 3.4; algbw = 360 x 8 / 14.
  const Candidate* ring = find(list, Algorithm::kRing, Protocol::kSimple);
  CHECK(ring->latency_us == doctest::Approx(56.0));
  CHECK(ring->algbw_gbyte_per_s == doctest::Approx(360.0 * 8 / 14));
  // NVLS replaces the base latency with the NVLink hop (25 us); busBw = 8 x 40 x 0.85 x 7/8 x 2.
  const Candidate* nvls = find(list, Algorithm::kNvls, Protocol::kSimple);
  REQUIRE(nvls != nullptr);
  CHECK(nvls->latency_us == doctest::Approx(25.0));
  CHECK(nvls->algbw_gbyte_per_s == doctest::Approx(476.0 * 8 / 14));
  // No NVLSTree, PAT or CollNet on one node; NVLS is Simple only.
  CHECK(find(list, Algorithm::kNvlsTree, Protocol::kSimple) == nullptr);
  CHECK(find(list, Algorithm::kNvls, Protocol::kLL) == nullptr);
  CHECK(find(list, Algorithm::kCollNetDirect, Protocol::kSimple) == nullptr);
  CHECK(find(list, Algorithm::kPat, Protocol::kSimple) == nullptr);
  // The selected pair for 8 B is Ring/LL.
  CHECK(select_candidate(list).algorithm == Algorithm::kRing);
  CHECK(select_candidate(list).protocol == Protocol::kLL);
}

TEST_CASE("nccl tuning: multi-node rings count 2(M-1) network steps and plateau") {
  NcclModel model(profile("h100-dgx"));
  GroupTopology three = uniform_topology(3, 8);
  auto list = model.candidates(Collective::kAllReduce, 1024, three).value();
  // nsteps 46, nInter 2 x (3 - 1) = 4 (not 2 x 3): 6.6 + 42 x max(0.6, 1.0) + 4 x 2.7.
  CHECK(find(list, Algorithm::kRing, Protocol::kLL)->latency_us == doctest::Approx(59.4));
  // Ring/Simple: 8.4 + 42 x max(3.4, 3 x 1.0) + 4 x 14 = 207.2 below the plateau threshold...
  CHECK(find(list, Algorithm::kRing, Protocol::kSimple)->latency_us == doctest::Approx(207.2));
  // ...and x1.4 once bytes / (run-time channels 16 x 24 ranks) >= 64.
  std::int64_t threshold = 64 * 16 * 24;
  auto below = model.candidates(Collective::kAllReduce, threshold - 1, three).value();
  auto at = model.candidates(Collective::kAllReduce, threshold, three).value();
  CHECK(find(below, Algorithm::kRing, Protocol::kSimple)->latency_us == doctest::Approx(207.2));
  CHECK(find(at, Algorithm::kRing, Protocol::kSimple)->latency_us == doctest::Approx(207.2 * 1.4));
  // AMD hosts pay 2 us of network overhead per ring step.
  NcclModel amd(profile("a100-dgx"));
  auto a = amd.candidates(Collective::kAllGather, 1024, three).value();
  // 23 steps, 2 across nodes: 6.6 + 21 x max(0.6, 2.0) + 2 x 2.7.
  CHECK(find(a, Algorithm::kRing, Protocol::kLL)->latency_us == doctest::Approx(54.0));
}

TEST_CASE("nccl tuning: release constants differ where the reference says") {
  HardwareProfile h100 = profile("h100-dgx");
  GroupTopology three = uniform_topology(3, 8);
  auto tree_simple = [&](NcclVersion v) {
    h100.nccl.version = v;
    auto list = NcclModel(h100).candidates(Collective::kAllReduce, 1024, three).value();
    return find(list, Algorithm::kTree, Protocol::kSimple)->latency_us;
  };
  CHECK(tree_simple(NcclVersion::k2_28) == doctest::Approx(8.4 + 2 * (7 * 4.0 + 14)));
  CHECK(tree_simple(NcclVersion::k2_21) == doctest::Approx(0 + 2 * (7 * 28.0 + 28)));
  CHECK(tree_simple(NcclVersion::k2_18) == doctest::Approx(0 + 2 * (7 * 4.0 + 14)));
  // Hopper's single-node LL cap went from 87.7 (<= 2.20) to 141 GB/s.
  auto ring_ll_bw = [&](NcclVersion v) {
    h100.nccl.version = v;
    auto list = NcclModel(h100).candidates(Collective::kAllReduce, 1024, uniform_topology(1, 8));
    return find(list.value(), Algorithm::kRing, Protocol::kLL)->algbw_gbyte_per_s;
  };
  CHECK(ring_ll_bw(NcclVersion::k2_18) == doctest::Approx(87.7 * 8 / 14));
  CHECK(ring_ll_bw(NcclVersion::k2_28) == doctest::Approx(141.0 * 8 / 14));
  // PAT exists from 2.23 on.
  h100.nccl.version = NcclVersion::k2_21;
  auto old = NcclModel(h100).candidates(Collective::kAllGather, 1024, uniform_topology(8, 1));
  CHECK(find(old.value(), Algorithm::kPat, Protocol::kSimple) == nullptr);
}

TEST_CASE("nccl tuning: PCIe nodes have no LL128 and PCI hop latencies") {
  HardwareProfile p = profile("h100-dgx");
  p.node.intra_fabric = IntraFabric::kPcie;
  p.node.nvls = false;
  auto list = NcclModel(p).candidates(Collective::kAllReduce, 1024, uniform_topology(1, 8)).value();
  CHECK(find(list, Algorithm::kRing, Protocol::kLL128) == nullptr);
  CHECK(find(list, Algorithm::kTree, Protocol::kLL128) == nullptr);
  CHECK(find(list, Algorithm::kRing, Protocol::kLL)->latency_us == doctest::Approx(6.6 + 14 * 1.0));
  CHECK(find(list, Algorithm::kNvls, Protocol::kSimple) == nullptr);
}

TEST_CASE("nccl tuning: CollNet when the profile enables it") {
  HardwareProfile p = profile("h100-dgx");
  GroupTopology two = uniform_topology(2, 8);
  auto plain = NcclModel(p).candidates(Collective::kAllReduce, 1 << 20, two).value();
  CHECK(find(plain, Algorithm::kCollNetDirect, Protocol::kSimple) == nullptr);
  CHECK(find(plain, Algorithm::kNvls, Protocol::kSimple) == nullptr);  // needs CollNet off-node
  p.nccl.collnet = true;
  NcclModel model(p);
  auto list = model.candidates(Collective::kAllReduce, 1 << 20, two).value();
  // CollNetDirect: 2 x (min(1, 7) x 3.7 + 7 x 0.4) + 31; 8 ch x 48 / (f - (f-1)/2 = 1) x 0.85 x 0.5
  const Candidate* direct = find(list, Algorithm::kCollNetDirect, Protocol::kSimple);
  REQUIRE(direct != nullptr);
  CHECK(direct->latency_us == doctest::Approx(44.0));
  CHECK(direct->algbw_gbyte_per_s == doctest::Approx(384 * 0.85 * 0.5));
  // CollNetChain: 2 x 7 x 2.8 + 30, 384 x 0.5.
  const Candidate* chain = find(list, Algorithm::kCollNetChain, Protocol::kSimple);
  REQUIRE(chain != nullptr);
  CHECK(chain->latency_us == doctest::Approx(69.2));
  CHECK(chain->algbw_gbyte_per_s == doctest::Approx(192.0));
  CHECK(find(list, Algorithm::kCollNetDirect, Protocol::kLL) == nullptr);  // Simple only
  // NVLS across nodes (NVLS + SHARP): 25 + 18 us.
  CHECK(find(list, Algorithm::kNvls, Protocol::kSimple)->latency_us == doctest::Approx(43.0));
  // all_gather CollNetDirect: ppn x min(bwIntra, 0.9 bwInter), no bus -> algbw conversion.
  auto ag = model.candidates(Collective::kAllGather, 1 << 20, two).value();
  CHECK(find(ag, Algorithm::kCollNetDirect, Protocol::kSimple)->algbw_gbyte_per_s ==
        doctest::Approx(8 * 0.9 * 48));
  // Not on one node.
  auto one = model.candidates(Collective::kAllReduce, 1 << 20, uniform_topology(1, 8)).value();
  CHECK(find(one, Algorithm::kCollNetDirect, Protocol::kSimple) == nullptr);
}

TEST_CASE("nccl tuning: ties go to the earlier (algorithm, protocol)") {
  CandidateList list;
  list.items[0] = {Algorithm::kTree, Protocol::kSimple, 1, 1, 10.0};
  list.items[1] = {Algorithm::kRing, Protocol::kLL, 1, 1, 10.0};
  list.items[2] = {Algorithm::kNvls, Protocol::kSimple, 1, 1, 10.0};
  list.size = 3;
  CHECK(select_candidate(list).algorithm == Algorithm::kTree);
  list.items[2].time_us = 9.999;
  CHECK(select_candidate(list).algorithm == Algorithm::kNvls);
}

TEST_CASE("nccl tuning: two nodes use bwIntra and NVLSTree beats the NIC sum") {
  // Measured 2 x 8 H100 all_reduce busbw exceeds 8 x 48 = 384 GB/s (464-487,
  // docs/reference/collectives.md §3.3).
  NcclModel model(profile("h100-dgx"));
  auto big = model.cost(Collective::kAllReduce, std::int64_t{8} << 30, uniform_topology(2, 8));
  REQUIRE(big.ok());
  CHECK(big.value().algorithm == Algorithm::kNvlsTree);
  CHECK(big.value().busbw_gbyte_per_s > 384.0);
  // On >= 3 nodes the ring rule holds: busbw approaches nChannels x bwInter = 384.
  auto far = model.cost(Collective::kAllReduce, std::int64_t{64} << 30, uniform_topology(8, 8));
  CHECK(far.value().busbw_gbyte_per_s < 384.0);
  CHECK(far.value().busbw_gbyte_per_s > 370.0);
}

TEST_CASE("nccl tuning: the tree correction never makes a larger message cheaper") {
  // Tree/LL factors go .4 -> .5 between 2^19 x 64 and 2^20 x 64 bytes: NCCL's raw time drops
  // there; dtplan caps the smaller size at the boundary size's time.
  HardwareProfile h100 = profile("h100-dgx");
  GroupTopology three = uniform_topology(3, 8);
  NcclModel model(h100);
  std::int64_t boundary = std::int64_t{64} << 14;  // bucket 13 (.4) -> 14 (.5) for LL
  auto before = model.candidates(Collective::kAllReduce, boundary - 64, three).value();
  auto after = model.candidates(Collective::kAllReduce, boundary, three).value();
  const Candidate* b = find(before, Algorithm::kTree, Protocol::kLL);
  const Candidate* a = find(after, Algorithm::kTree, Protocol::kLL);
  CHECK(b->time_us <= a->time_us);
  double raw_before = b->latency_us + (boundary - 64) / (1000.0 * b->algbw_gbyte_per_s);
  CHECK(raw_before > a->time_us);  // NCCL's own formula would have dropped
}

}  // namespace
}  // namespace dtplan::cost
