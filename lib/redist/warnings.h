#pragma once
// Redistribution warnings. DTensor's (docs/reference/placements.md §4.5): a plan runs two or more
// sequential collectives of one kind over several mesh dims that one collective on a flattened mesh
// could replace, and the merge could not happen, for one of three reasons:
//   no_flattened_mesh         the user created no flattened mesh over those dims
//   uneven_tensor_shape       the tensor dim does not divide evenly over the merged group size
//   non_ascending_mesh_dims   the steps run in an order no flattened mesh can reproduce
// and dtplan's own:
//   divergent_replicas        a floating-point sum or average reduces equal inputs in several
//                             groups that sit on nodes differently, so NCCL may reduce them in
//                             different orders and ranks that must hold the same values may hold
//                             different bits (replica_divergence.h)
//   merge_costs_more          a merged step costs more than the steps it replaced (the greedy
//                             planner merges unconditionally, as DTensor does)
//
// WarningSink deduplicates them as PyTorch's process-global set does, but per sink: a warning is
// emitted at most once per (mesh, sorted mesh dims, reason). Planners take a sink; nothing is
// global.

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/result.h"

namespace dtplan::redist {

enum class WarningReason : std::uint8_t {
  kNoFlattenedMesh,
  kUnevenTensorShape,
  kNonAscendingMeshDims,
  kDivergentReplicas,
  kMergeCostsMore,
};

// "no_flattened_mesh", "uneven_tensor_shape", "non_ascending_mesh_dims", "divergent_replicas",
// "merge_costs_more".
std::string_view warning_reason_name(WarningReason reason);
core::Result<WarningReason> parse_warning_reason(std::string_view text, std::string_view what);

struct Warning {
  WarningReason reason = WarningReason::kNoFlattenedMesh;
  std::vector<std::int32_t> mesh_dims;  // ascending
  std::string message;
  bool operator==(const Warning&) const = default;
};

class WarningSink {
 public:
  // Records `w` unless (mesh_key, w.mesh_dims, w.reason) was recorded; true if it was new.
  bool emit(std::string_view mesh_key, const Warning& w);
  // Every warning emitted, in emission order.
  [[nodiscard]] const std::vector<Warning>& emitted() const { return emitted_; }

 private:
  std::set<std::tuple<std::string, std::vector<std::int32_t>, WarningReason>> seen_;
  std::vector<Warning> emitted_;
};

}  // namespace dtplan::redist
