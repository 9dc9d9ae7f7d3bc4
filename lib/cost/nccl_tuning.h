#pragma once
// A port of NCCL's tuning model (src/graph/tuning.cc, ncclTopoTuneModel + ncclTopoGetAlgoTime;
// docs/reference/collectives.md §1.3): for every (algorithm, protocol) NCCL could run a collective
// with, a latency and an algorithm bandwidth derived from the group's channel graphs, then
//   time_us = latency + bytes / (1000 x algbw x corrections)
// and the fastest available pair wins. Selection rule (NCCL's): candidates are visited in NCCL's
// order (algorithms Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT; protocols LL,
// LL128, Simple) and a later one replaces the best only when strictly faster, so ties go to the
// earlier pair.
//
// all_to_all, send/recv, gather and scatter are grouped point-to-point operations in NCCL, not
// tuned collectives; they are priced by the p2p rules of nccl_p2p.h (reported as "P2P").
//
// One deliberate deviation: NCCL's tree correction factor jumps at powers of two, which makes
// its Tree time drop by up to 20% just past a boundary. dtplan caps a Tree candidate at its time
// for the next boundary size, so time never decreases with size (an op can always be padded).

#include <array>
#include <cstdint>

#include "collective/collective.h"
#include "cost/group_topology.h"
#include "cost/hardware.h"
#include "cost/nccl_constants.h"

namespace dtplan::cost {

// What bounds a candidate's bandwidth: the intra-node fabric, or the NICs (the rate NCCL derives
// from the NIC path: multi-node rings, trees, PAT and CollNet, and NVLS/NVLSTree where their
// network term is the smaller).
enum class Bottleneck : std::uint8_t { kIntra, kNetwork };

struct Candidate {
  Algorithm algorithm = Algorithm::kRing;
  Protocol protocol = Protocol::kSimple;
  double latency_us = 0;              // after the plateau factor
  double algbw_gbyte_per_s = 0;       // after the tree correction at this size
  double time_us = 0;                 // NCCL's estimate: latency + bytes / algbw
  double peak_algbw_gbyte_per_s = 0;  // before the tree correction
  Bottleneck bottleneck = Bottleneck::kIntra;
  bool operator==(const Candidate&) const = default;
};

// The available candidates in NCCL's order (at most 7 x 3).
struct CandidateList {
  std::array<Candidate, kNumNcclAlgorithms * kNumProtocols> items{};
  int size = 0;
  [[nodiscard]] const Candidate* begin() const { return items.data(); }
  [[nodiscard]] const Candidate* end() const { return items.data() + size; }
};

// Every candidate NCCL `version` would consider for a tuned collective (all_reduce, all_gather,
// reduce_scatter, broadcast, reduce) of `bytes` on `topology`.
// @pre check_topology(profile, topology) passed, topology.ranks >= 2, bytes >= 1, and the
// collective is one of the five tuned ones.
CandidateList nccl_candidates(const HardwareProfile& profile, NcclVersion version,
                              collective::Collective collective, std::int64_t bytes,
                              const GroupTopology& topology);

// The candidate NCCL's tuner selects (see the selection rule above). @pre list.size > 0.
const Candidate& select_candidate(const CandidateList& list);

// True for the five collectives NCCL tunes (the rest go through the p2p rules).
bool is_tuned(collective::Collective collective);

}  // namespace dtplan::cost
