#pragma once
// PyTorch DTensor's redistribution cost model (_collective_utils.py,
// docs/reference/placements.md §5), so that dtplan's plans and numbers can be compared with
// PyTorch's:
//
//   MeshTopoInfo   every mesh dim starts at 87.7 GB/s and 0.6 us per hop; walking inner to outer,
//                  the first dim whose cumulative size exceeds one host, and every dim outside it,
//                  gets 87.7 x 0.22 = 19.294 GB/s and 2.7 us (devices per host = GPUs per node).
//   formulas (b in GiB, n ranks, us):
//     all_gather / reduce_scatter  6.6 + (n-1) lat + 1e6 b (n-1)/n / bw
//     all_reduce                   6.6 + 2(n-1) lat + 1e6 b 2(n-1)/n / bw
//     all_to_all                   all_gather(b) + 1.0 (PyTorch's penalty; no own formula)
//   byte counts: b = global bytes / num_shards of the state before the step
//   (docs/reference/placements.md §5.4, the graph
//     planner's edge weight); S -> R prices all_gather(b n), S -> S all_to_all(b), P -> R
//     all_reduce(b), P -> S reduce_scatter(b). docs/reference/placements.md §5.5 threads b through
//     a plan by the same rules (x n after a gather, / n after a scatter or chunk), which gives the
//     same numbers.
//
// Deviations, each because PyTorch prices a step that really runs at 0:
//   * StridedShard steps (_S -> R, _S <-> S, P -> _S) are priced as the collective they run
//     (PyTorch's is_shard() checks send them to its "anything else: 0" row,
//     docs/reference/placements.md §5.3), and num_shards counts StridedShard dims (each splits the
//     tensor), so b is what the rank holds.
//   * R -> P(sum) runs a divide: its memory traffic is priced by the roofline (as in the nccl
//     model); R -> P(avg|max|min) is the identity and stays 0.
//   * A merged sum+avg reduction pays its divide the same way.
//   * A step whose group has one rank costs 0 (PyTorch would price 6.6 us; the runtime skips it).
//   * A flattened step (PyTorch never prices one, docs/reference/placements.md §4.6) uses the
//     formulas with n = the flattened size, inter-host if any merged dim is.
// Kept as PyTorch has it: R -> S (a chunk copy) costs 0.

#include <cstdint>

#include "cost/hardware.h"
#include "redist/cost_model.h"

namespace dtplan::redist {

struct DTensorLink {
  double bw_gbyte_per_s = 87.7;
  double latency_us = 0.6;
  bool operator==(const DTensorLink&) const = default;
};

inline constexpr DTensorLink kDTensorIntraHost{87.7, 0.6};
inline constexpr DTensorLink kDTensorInterHost{87.7 * 0.22, 2.7};
inline constexpr double kDTensorBaseUs = 6.6;
inline constexpr double kDTensorAllToAllPenaltyUs = 1.0;

// The formulas of docs/reference/placements.md §5.2; `gib` is bytes / 1024^3. Example:
// dtensor_all_gather_us(4 MiB in GiB, 8, intra) ~= 49.77.
double dtensor_all_gather_us(double gib, std::int64_t n, const DTensorLink& link);
double dtensor_all_reduce_us(double gib, std::int64_t n, const DTensorLink& link);

class DTensorModel final : public CostModel {
 public:
  explicit DTensorModel(cost::HardwareProfile profile) : profile_(std::move(profile)) {}
  [[nodiscard]] std::string_view name() const override { return "dtensor"; }
  [[nodiscard]] core::Result<StepPrice> price(const MeshContext& mesh,
                                              const StepQuery& query) const override;

 private:
  cost::HardwareProfile profile_;
};

}  // namespace dtplan::redist
