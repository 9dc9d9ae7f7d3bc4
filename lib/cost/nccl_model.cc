#include "cost/nccl_model.h"

#include <string>
#include <utility>

#include "cost/nccl_p2p.h"

namespace dtplan::cost {

NcclModel::NcclModel(HardwareProfile profile) : profile_(std::move(profile)) {}

core::Result<CandidateList> NcclModel::candidates(collective::Collective collective,
                                                  std::int64_t bytes,
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

core::Result<CollectiveCost> NcclModel::cost(collective::Collective collective, std::int64_t bytes,
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
  const Candidate& best = select_candidate(list);
  CollectiveCost raw;
  raw.time_us = best.time_us;
  raw.algorithm = best.algorithm;
  raw.protocol = best.protocol;
  raw.latency_us = best.latency_us;
  return finish_cost(profile_, collective, bytes, topology, raw);
}

}  // namespace dtplan::cost
