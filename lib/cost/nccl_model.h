#pragma once
// NcclModel: the default CollectiveModel, a port of NCCL's own tuning model (nccl_tuning.h) with
// the constants of the profile's NCCL release, priced on the group's channel graphs
// (nccl_graph.h). Point-to-point collectives (all_to_all, ...) use the p2p rules (nccl_p2p.h).
//
//   NcclModel model(load_hardware("h100-dgx", search).value());
//   // 256 B all_reduce on 3 nodes x 8 H100: Tree/LL, 25.2 us (NCCL prints 25.23 for this case)
//   model.cost(Collective::kAllReduce, 256, uniform_topology(3, 8));

#include "cost/collective_model.h"
#include "cost/nccl_tuning.h"

namespace dtplan::cost {

class NcclModel final : public CollectiveModel {
 public:
  // @pre validate(profile) passed.
  explicit NcclModel(HardwareProfile profile);

  [[nodiscard]] std::string_view name() const override { return "nccl"; }
  [[nodiscard]] core::Result<CollectiveCost> cost(collective::Collective collective,
                                                  std::int64_t bytes,
                                                  const GroupTopology& topology) const override;

  // Every candidate NCCL would weigh, for explanations and tests (empty for one rank or zero
  // bytes; the single P2P candidate for point-to-point collectives).
  [[nodiscard]] core::Result<CandidateList> candidates(collective::Collective collective,
                                                       std::int64_t bytes,
                                                       const GroupTopology& topology) const;

  [[nodiscard]] const HardwareProfile& profile() const { return profile_; }

 private:
  HardwareProfile profile_;
};

}  // namespace dtplan::cost
