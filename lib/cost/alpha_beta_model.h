#pragma once
// AlphaBetaModel ("alpha-beta"): the Hockney / Thakur-Rabenseifner-Gropp cost of a flat ring over
// the group (docs/reference/collectives.md §1.2, §3.3), with the node structure taken into account:
//   B_bus = B_intra on one node, else min(B_intra, k x B_nic) where k = NICs next to the group's
//           GPUs on a node (the ring's channels add up across NICs);
//   all_gather / reduce_scatter: launch + (n - M) a_intra + (M - 1) a_inter + (n-1)/n S / B_bus;
//   all_reduce: twice the steps and 2(n-1)/n S / B_bus;
//   broadcast / reduce (pipelined ring): launch + (n - M) a_intra + (M - 1) a_inter + S / B_bus;
//   all_to_all (pairwise exchange): launch + (G_max - 1) a_intra + (n - G_min) a_inter
//       + max(intra share / B_intra, inter share / B_nic per GPU) (NICs do not aggregate);
//   send/recv: launch + one hop + S over the slowest pair; gather/scatter: as all_to_all at the
//   root, through its one NIC.
// Parameters come from the profile's "alpha_beta" block, or are derived from its fabric with
// NCCL's constants: launch = Ring/Simple base latency (8.4 us), a_intra = NVLink (or PCI)
// Ring/Simple hop (3.4 us), a_inter = NET Ring/Simple hop (14 us), B_intra = single-node ring
// bus bandwidth, B_nic = one NIC's path rate.

#include "cost/collective_model.h"

namespace dtplan::cost {

// The profile's alpha-beta parameters, or the derived ones above.
AlphaBetaParams alpha_beta_params(const HardwareProfile& profile);

class AlphaBetaModel final : public CollectiveModel {
 public:
  // @pre validate(profile) passed.
  explicit AlphaBetaModel(HardwareProfile profile);

  [[nodiscard]] std::string_view name() const override { return "alpha-beta"; }
  [[nodiscard]] core::Result<CollectiveCost> cost(collective::Collective collective,
                                                  std::int64_t bytes,
                                                  const GroupTopology& topology) const override;

  [[nodiscard]] const AlphaBetaParams& params() const { return params_; }

 private:
  HardwareProfile profile_;
  AlphaBetaParams params_;
};

}  // namespace dtplan::cost
