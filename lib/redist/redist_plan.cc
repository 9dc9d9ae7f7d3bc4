#include "redist/redist_plan.h"

#include "core/field_path.h"
#include "core/strings.h"
#include "layout/layout_text.h"
#include "mesh/mesh_ops.h"
#include "placement/strided_encoding.h"

namespace dtplan::redist {

std::string_view planner_name(PlannerKind kind) {
  switch (kind) {
    case PlannerKind::kGreedy:
      return "greedy";
    case PlannerKind::kMinCost:
      return "min-cost";
    case PlannerKind::kAuto:
      return "auto";
  }
  return "auto";
}

core::Result<PlannerKind> parse_planner(std::string_view text, std::string_view what) {
  for (PlannerKind k : {PlannerKind::kGreedy, PlannerKind::kMinCost, PlannerKind::kAuto}) {
    if (planner_name(k) == text) return k;
  }
  return core::Error::bad_input(std::string(what) + ": unknown planner '" + std::string(text) +
                                "'; expected greedy, min-cost or auto");
}

RedistState plan_endpoint(const placement::TensorSpec& spec,
                          std::span<const std::int64_t> mesh_sizes) {
  if (!spec.has_strided_shard()) return state_of(spec);
  auto decoded = placement::decode_spec(spec, mesh_sizes);
  return decoded.ok() ? state_of(*decoded) : state_of(spec);
}

std::string plan_trace(const RedistState& start, std::span<const PlanStep> steps) {
  std::string out = trace_state(start);
  for (const PlanStep& s : steps) {
    out += s.transform.flattened() ? "-->" : "->";
    out += trace_state(s.state);
  }
  return out;
}

CommCounts count_comms(std::span<const PlanStep> steps) {
  CommCounts c;
  for (const PlanStep& s : steps) {
    if (s.group_size <= 1) continue;
    switch (s.transform.kind) {
      case StepKind::kAllGather:
        ++c.all_gather;
        break;
      case StepKind::kAllReduce:
        ++c.all_reduce;
        break;
      case StepKind::kReduceScatter:
        ++c.reduce_scatter;
        break;
      case StepKind::kAllToAll:
        ++c.all_to_all;
        break;
      case StepKind::kLocalChunk:
      case StepKind::kLocalPartition:
        break;
    }
  }
  return c;
}

core::Result<mesh::DeviceMesh> build_described_mesh(const MeshDescription& d) {
  std::vector<layout::Layout> dims;
  for (const std::string& text : d.layouts) {
    auto l = layout::parse_layout(text);
    if (!l.ok()) return l.error().with_context("mesh.layouts");
    dims.push_back(*l);
  }
  auto root = mesh::DeviceMesh::from_layout(d.ranks.values(), std::move(dims), d.names);
  if (!root.ok()) return root.error().with_context("mesh");
  if (root->shape() != d.shape) {
    return core::Error::bad_input("mesh: the layouts give shape " +
                                  core::format_int_list(root->shape()) + ", not " +
                                  core::format_int_list(d.shape));
  }
  for (const FlattenedMeshInfo& f : d.flattened) {
    if (f.mesh_dims.empty()) continue;
    std::vector<std::string> names;
    for (std::int32_t m : f.mesh_dims) {
      if (m < 0 || static_cast<std::size_t>(m) >= d.names.size()) {
        return core::Error::bad_input("mesh.flattened '" + f.name + "': mesh dim " +
                                      std::to_string(m) + " has no name");
      }
      names.push_back(d.names[static_cast<std::size_t>(m)]);
    }
    auto sub = mesh::slice(*root, names);
    if (!sub.ok()) return sub.error().with_context("mesh.flattened '" + f.name + "'");
    auto flat = mesh::flatten(*sub, f.name);
    if (!flat.ok()) return flat.error().with_context("mesh.flattened '" + f.name + "'");
  }
  return *root;
}

core::Status check_plan(const RedistPlan& plan, const std::string& base) {
  const auto at = [&](std::string_view key) { return core::join_path(base, key); };
  const auto step_at = [&](std::size_t i) { return core::index_path(at("steps"), i); };
  const std::span<const std::int64_t> sizes = plan.mesh.shape;
  if (plan.src.mesh_ndim() != sizes.size() || plan.dst.mesh_ndim() != sizes.size()) {
    return core::field_error(
        plan.src.mesh_ndim() != sizes.size() ? at("src") : at("dst"),
        "expected one placement per mesh dim (" + std::to_string(sizes.size()) + ")");
  }
  if (plan.src.shape() != plan.dst.shape() || plan.src.dtype() != plan.dst.dtype()) {
    return core::field_error(at("dst"), "src and dst describe different tensors");
  }
  if (!equivalent(plan.start, plan_endpoint(plan.src, sizes), sizes)) {
    return core::field_error(at("src"), "the plan's start state does not match it");
  }
  if (!equivalent(plan.target, plan_endpoint(plan.dst, sizes), sizes)) {
    return core::field_error(at("dst"), "the plan's target state does not match it");
  }
  RedistState state = plan.start;
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep& s = plan.steps[i];
    auto next = apply_transform(state, s.transform, sizes);
    if (!next.ok()) return core::field_error(step_at(i), next.error().message);
    std::int64_t group = 1;
    for (std::int32_t m : s.transform.mesh_dims) group *= sizes[static_cast<std::size_t>(m)];
    if (s.group_size != group) {
      return core::field_error(core::join_path(step_at(i), "group_size"),
                               std::to_string(s.group_size) +
                                   " is not the product of its mesh dims' sizes (" +
                                   std::to_string(group) + ")");
    }
    if (!equivalent(*next, s.state, sizes)) {
      return core::field_error(step_at(i), "its state " + state_text(s.state) +
                                               " is not the state it reaches, " +
                                               state_text(*next));
    }
    state = s.state;
  }
  if (!equivalent(state, plan.target, sizes)) {
    return core::field_error(at("steps"), "the steps end at " + state_text(state) + ", not at " +
                                              state_text(plan.target));
  }
  if (count_comms(plan.steps) != plan.comm_counts) {
    return core::field_error(at("comm_counts"), "do not match the steps");
  }
  if (plan_trace(plan.start, plan.steps) != plan.trace) {
    return core::field_error(at("trace"), "'" + plan.trace + "' does not match the steps ('" +
                                              plan_trace(plan.start, plan.steps) + "')");
  }
  return {};
}

}  // namespace dtplan::redist
