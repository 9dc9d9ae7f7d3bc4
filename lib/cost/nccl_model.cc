#include "cost/nccl_model.h"

#include <algorithm>
#include <bit>
#include <string>
#include <utility>

#include "cost/nccl_graph.h"
#include "cost/nccl_p2p.h"
#include "cost/nccl_runtime.h"

namespace dtplan::cost {

namespace {

using collective::Collective;

// NCCL's pick at one size and what it achieves there.
struct Run {
  Candidate candidate;
  Achieved achieved;
};

bool same_pair(const Candidate& a, const Candidate& b) {
  return a.algorithm == b.algorithm && a.protocol == b.protocol;
}

// Above this size the padding walk stops (1 PiB; far beyond any collective a plan holds).
constexpr std::int64_t kWalkLimit = std::int64_t{1} << 50;

// Runs of one tuned collective on one group: what every size shares.
class Pricer {
 public:
  Pricer(const HardwareProfile& hw, Collective coll, const GroupTopology& topo)
      : hw_(hw), coll_(coll), topo_(topo), graphs_(nccl_graphs(hw, topo)) {}

  // NCCL's pick at `bytes` (its tuner's least estimate) and its achieved time.
  // @pre the candidate list is not empty (availability does not depend on the size).
  [[nodiscard]] Run pick(std::int64_t bytes) const {
    const CandidateList list = nccl_candidates(hw_, hw_.nccl.version, coll_, bytes, topo_);
    const Candidate& c = select_candidate(list);
    return {c, achieve(hw_, coll_, bytes, topo_, graphs_, c)};
  }

  // The least achieved time of any pair at `bytes`. Each pair's achieved time is non-decreasing
  // in size (nccl_runtime.h), so no size from `bytes` on runs faster than this, whatever NCCL
  // picks there.
  [[nodiscard]] double floor_us(std::int64_t bytes) const {
    const CandidateList list = nccl_candidates(hw_, hw_.nccl.version, coll_, bytes, topo_);
    double least = 0;
    bool first = true;
    for (const Candidate& c : list) {
      double t = achieve(hw_, coll_, bytes, topo_, graphs_, c).time_us;
      if (first || t < least) least = t;
      first = false;
    }
    return least;
  }

 private:
  const HardwareProfile& hw_;
  Collective coll_;
  const GroupTopology& topo_;
  NcclGraphs graphs_;
};

// Lowers `best` to the achieved time at every size in (a, b] where NCCL's pick changes, given
// the picks at a and b. Between two sizes with the same pick the pick is taken to be the same
// throughout (each estimate is affine in the size between powers of two, so each pair wins on
// one interval there); otherwise the interval is halved down to the byte.
void visit_switches(const Pricer& pricer, std::int64_t a, const Candidate& at_a, std::int64_t b,
                    const Candidate& at_b, double& best) {
  if (same_pair(at_a, at_b) || b - a <= 1) return;
  const std::int64_t m = a + (b - a) / 2;
  const Run mid = pricer.pick(m);
  best = std::min(best, mid.achieved.time_us);
  visit_switches(pricer, a, at_a, m, mid.candidate, best);
  visit_switches(pricer, m, mid.candidate, b, at_b, best);
}

// The least achieved time of NCCL's pick over all sizes >= `bytes` (a collective can always be
// padded). Each pair's time grows with size, so only the first size of each stretch where one
// pair is picked can undercut; the walk visits those octave by octave and stops once no size
// beyond can run faster than the best found.
double padded_time_us(const Pricer& pricer, std::int64_t bytes, const Run& here) {
  double best = here.achieved.time_us;
  std::int64_t lo = bytes;
  Candidate at_lo = here.candidate;
  while (lo < kWalkLimit && pricer.floor_us(lo) < best) {
    const std::int64_t hi = std::bit_floor(static_cast<std::uint64_t>(lo)) * 2;
    const Run at_hi = pricer.pick(hi);
    best = std::min(best, at_hi.achieved.time_us);
    visit_switches(pricer, lo, at_lo, hi, at_hi.candidate, best);
    lo = hi;
    at_lo = at_hi.candidate;
  }
  return best;
}

}  // namespace

NcclModel::NcclModel(HardwareProfile profile) : profile_(std::move(profile)) {}

core::Result<CandidateList> NcclModel::candidates(Collective collective, std::int64_t bytes,
                                                  const GroupTopology& topology) const {
  if (bytes < 0) {
    return core::Error::bad_input("collective " + std::string(collective::name(collective)) +
                                  ": bytes must be >= 0, got " + std::to_string(bytes));
  }
  DTPLAN_CHECK(check_topology(profile_, topology));
  CandidateList list;
  if (topology.ranks == 1 || bytes == 0) return list;
  if (!is_tuned(collective)) {
    list.items[0] = p2p_candidate(profile_, profile_.nccl.version, collective, bytes, topology);
    list.size = 1;
    return list;
  }
  return nccl_candidates(profile_, profile_.nccl.version, collective, bytes, topology);
}

core::Result<CollectiveCost> NcclModel::cost(Collective collective, std::int64_t bytes,
                                             const GroupTopology& topology) const {
  DTPLAN_TRY(CandidateList list, candidates(collective, bytes, topology));
  if (topology.ranks == 1 || bytes == 0) {
    return finish_cost(profile_, collective, bytes, topology, {});
  }
  if (list.size == 0) {  // not expected for a validated profile; never select from nothing
    return core::Error::unsupported("hardware '" + profile_.name + "': no NCCL algorithm for " +
                                    std::string(collective::name(collective)) + " on " +
                                    describe(topology));
  }
  CollectiveCost raw;
  if (!is_tuned(collective)) {  // the single P2P candidate, priced whole
    const Candidate& p2p = list.items[0];
    raw.time_us = p2p.time_us;
    raw.algorithm = p2p.algorithm;
    raw.protocol = p2p.protocol;
    raw.latency_us = p2p.latency_us;
    raw.bandwidth_us = p2p.time_us - p2p.latency_us;
    return finish_cost(profile_, collective, bytes, topology, raw);
  }
  const Pricer pricer(profile_, collective, topology);
  const Run here = pricer.pick(bytes);
  raw.time_us = padded_time_us(pricer, bytes, here);
  raw.algorithm = here.candidate.algorithm;
  raw.protocol = here.candidate.protocol;
  raw.channels = here.achieved.shape.channels;
  raw.latency_us = std::min(here.achieved.latency_us, raw.time_us);
  raw.bandwidth_us = raw.time_us - raw.latency_us;
  return finish_cost(profile_, collective, bytes, topology, raw);
}

}  // namespace dtplan::cost
