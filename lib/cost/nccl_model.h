#pragma once
// NcclModel: the default CollectiveModel. NCCL's own tuning model (nccl_tuning.h, with the
// constants of the profile's NCCL release, on the group's channel graphs of nccl_graph.h) rates
// every (algorithm, protocol) pair and picks the one NCCL runs (select_candidate); the price is
// what that pair achieves at the size (nccl_runtime.h: channels, chunk pipeline, fabric
// efficiency), never more than NCCL's pick achieves at a larger size (a collective can be
// padded; this keeps the price non-decreasing where the pick changes). Point-to-point
// collectives (all_to_all, ...) use the p2p rules (nccl_p2p.h). docs/model.md has the model.
//
//   NcclModel model(load_hardware("h100-dgx", search).value());
//   // 256 B all_reduce on 3 nodes x 8 H100: Tree/LL, 25.2 us of latency (NCCL's estimate of the
//   // whole is 25.23 us) plus a fraction of a microsecond of bandwidth time
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
