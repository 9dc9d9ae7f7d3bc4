#include "replay/replay_source.h"

#include <algorithm>

#include "placement/tensor_spec.h"

namespace dtplan::replay {

std::string_view plan_kind_name(PlanKind kind) {
  return kind == PlanKind::kRedistribute ? "redistribute" : "model";
}

ReplaySource from_redist_plan(redist::RedistPlan plan) {
  ReplaySource s;
  s.kind = PlanKind::kRedistribute;
  s.mesh = plan.mesh;
  std::string label = "redistribute " + placement::format_placement_list(plan.src) + " -> " +
                      placement::format_placement_list(plan.dst);
  s.redistributions.push_back({std::move(label), std::move(plan)});
  return s;
}

ReplaySource from_model_plan(const plan::Plan& plan) {
  ReplaySource s;
  s.kind = PlanKind::kModel;
  s.model = plan.model;
  s.mesh = plan.mesh;
  for (const plan::PlanRedistribution& r : plan.redistributions) {
    const auto consumer = static_cast<std::size_t>(r.consumer);
    std::string label = "op " + std::to_string(r.consumer);
    if (consumer < plan.ops.size()) label += " '" + plan.ops[consumer].name + "'";
    label += " input " + std::to_string(r.slot);
    s.redistributions.push_back({std::move(label), r.plan});
  }
  s.ops = plan.ops;
  return s;
}

core::Result<std::int64_t> mesh_world_size(const redist::MeshDescription& mesh) {
  if (mesh.ranks.empty()) return core::Error::bad_input("plan mesh: the rank map is empty");
  const auto [lo, hi] = std::minmax_element(mesh.ranks.begin(), mesh.ranks.end());
  if (*lo < 0) {
    return core::Error::bad_input("plan mesh: rank " + std::to_string(*lo) + " is negative");
  }
  return *hi + 1;
}

}  // namespace dtplan::replay
