#include "redist/redist_plan_check.h"

#include <cmath>
#include <set>
#include <tuple>

#include "core/dtype.h"
#include "core/field_path.h"
#include "core/limits.h"
#include "core/strings.h"
#include "core/units.h"
#include "placement/tensor_spec.h"
#include "redist/planner.h"

namespace dtplan::redist {

namespace {

using core::field_error;
using core::index_path;
using core::join_path;

std::string quoted(const std::string& text) { return "'" + text + "'"; }

core::Status check_flattened(const MeshDescription& mesh, const MeshDescription& built,
                             const std::string& base) {
  const std::string path = join_path(base, "flattened");
  std::size_t k = 0;  // index in built.flattened
  for (std::size_t i = 0; i < mesh.flattened.size(); ++i) {
    const FlattenedMeshInfo& f = mesh.flattened[i];
    if (f.mesh_dims.empty()) continue;  // not rebuilt, so no step can run on it
    const std::string at = index_path(path, i);
    if (k >= built.flattened.size() || built.flattened[k].name != f.name) {
      return field_error(join_path(at, "name"),
                         quoted(f.name) + " is not a flattened mesh the mesh registers");
    }
    const FlattenedMeshInfo& b = built.flattened[k++];
    if (b.mesh_dims != f.mesh_dims) {
      return field_error(join_path(at, "mesh_dims"),
                         "the flattened mesh " + quoted(f.name) + " flattens mesh dims " +
                             core::format_int_list(std::vector<std::int64_t>(b.mesh_dims.begin(),
                                                                             b.mesh_dims.end())) +
                             " (the fewest that give its layout)");
    }
    if (b.layout != f.layout) {
      return field_error(at, "its layout " + quoted(f.layout) + " is not that of mesh dims " +
                                 core::format_int_list(std::vector<std::int64_t>(
                                     f.mesh_dims.begin(), f.mesh_dims.end())) +
                                 " flattened, " + quoted(b.layout));
    }
  }
  return {};
}

// The step's tensor before it, for messages: "f32[16,16] S(0),R on mesh [2,2]".
std::string tensor_text(const RedistPlan& plan, const RedistState& before) {
  return std::string(core::dtype_name(plan.src.dtype())) + core::format_int_list(plan.src.shape()) +
         " " + state_text(before) + " on mesh " + core::format_int_list(plan.mesh.shape);
}

// A cost read back: a whole number of picoseconds in [0, kMaxCostPs] (what the planners write).
core::Status check_cost(double us, const std::string& path) {
  if (!std::isfinite(us) || us < 0 || us * 1e6 > static_cast<double>(kMaxCostPs)) {
    return field_error(path, core::format_fixed(us, 6) + " us is not a cost in [0, " +
                                 core::format_fixed(static_cast<double>(kMaxCostPs) / 1e6, 0) +
                                 "] us");
  }
  if (static_cast<double>(to_ps(us)) / 1e6 != us) {
    return field_error(path,
                       "is not a whole number of picoseconds (the planners round each "
                       "step to one)");
  }
  return {};
}

core::Status check_steps(const RedistPlan& plan, const MeshContext& ctx, const std::string& base) {
  RedistState before = plan.start;
  std::int64_t total_ps = 0;
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep& s = plan.steps[i];
    const std::string at = index_path(join_path(base, "steps"), i);
    if (!plan.merge && s.transform.flattened()) {
      return field_error(join_path(at, "flattened_mesh"),
                         "a plan made with merge false runs no step on a flattened mesh");
    }
    auto q = make_query(ctx, plan.src.shape(), plan.src.dtype(), before, s.transform);
    if (!q.ok()) return field_error(at, q.error().message);
    const std::int64_t group = ctx.groups(q->mesh_dims, q->flattened).size;
    if (s.group_size != group) {
      return field_error(join_path(at, "group_size"),
                         std::to_string(s.group_size) + " is not the size of the step's groups (" +
                             std::to_string(group) + ")");
    }
    if (s.bytes != q->bytes) {
      return field_error(join_path(at, "bytes"), std::to_string(s.bytes) + " does not match " +
                                                     tensor_text(plan, before) + " (expected " +
                                                     std::to_string(q->bytes) + ")");
    }
    DTPLAN_CHECK(check_cost(s.cost_us, join_path(at, "cost_us")));
    total_ps += to_ps(s.cost_us);
    before = s.state;
  }
  if (to_ps(plan.total_cost_us) != total_ps ||
      static_cast<double>(total_ps) / 1e6 != plan.total_cost_us) {
    return field_error(join_path(base, "total_cost_us"),
                       core::format_fixed(plan.total_cost_us, 6) +
                           " is not the sum of the steps' cost_us (" +
                           core::format_fixed(static_cast<double>(total_ps) / 1e6, 6) + ")");
  }
  return {};
}

core::Status check_warnings(const RedistPlan& plan, const std::string& base) {
  std::set<std::tuple<std::vector<std::int32_t>, WarningReason>> seen;
  const auto ndim = static_cast<std::int32_t>(plan.mesh.shape.size());
  for (std::size_t i = 0; i < plan.warnings.size(); ++i) {
    const Warning& w = plan.warnings[i];
    const std::string at = index_path(join_path(base, "warnings"), i);
    for (std::size_t k = 0; k < w.mesh_dims.size(); ++k) {
      const std::int32_t m = w.mesh_dims[k];
      if (m < 0 || m >= ndim || (k > 0 && m <= w.mesh_dims[k - 1])) {
        return field_error(join_path(at, "mesh_dims"),
                           "must be ascending, distinct mesh dims of the mesh (" +
                               std::to_string(ndim) + " dims)");
      }
    }
    if (w.mesh_dims.empty()) return field_error(join_path(at, "mesh_dims"), "names no mesh dim");
    if (w.message.empty()) return field_error(join_path(at, "message"), "is empty");
    if (!seen.emplace(w.mesh_dims, w.reason).second) {
      return field_error(at, "repeats an earlier warning's mesh dims and reason");
    }
  }
  return {};
}

}  // namespace

core::Status check_tensor_shape(const std::vector<std::int64_t>& shape, core::DType dtype,
                                std::span<const std::int64_t> mesh_sizes, const std::string& path) {
  const std::vector<placement::Placement> replicated(mesh_sizes.size());
  auto spec = placement::TensorSpec::make(shape, dtype, replicated, mesh_sizes);
  if (!spec.ok()) return field_error(path, spec.error().message);
  return {};
}

core::Status check_mesh_description(const MeshDescription& mesh, const MeshContext& ctx,
                                    const std::string& base) {
  const MeshDescription built = describe_mesh(ctx);
  const auto at = [&](std::string_view key) { return join_path(base, key); };
  // build_described_mesh checked shape, names, ranks against the layouts; what remains is the
  // text of each layout and of the flattened meshes (which it does not read back).
  for (std::size_t i = 0; i < mesh.layouts.size() && i < built.layouts.size(); ++i) {
    if (mesh.layouts[i] != built.layouts[i]) {
      return field_error(index_path(at("layouts"), i),
                         quoted(mesh.layouts[i]) + " is not in the form the writer gives, " +
                             quoted(built.layouts[i]));
    }
  }
  if (mesh.shape != built.shape || mesh.names != built.names || mesh.ranks != built.ranks ||
      mesh.layouts.size() != built.layouts.size()) {
    return field_error(base, "does not describe the mesh its layouts build");
  }
  for (std::size_t i = 0; i < mesh.names.size(); ++i) {
    if (mesh.names[i].empty()) return field_error(index_path(at("names"), i), "is empty");
  }
  for (std::size_t i = 0; i < mesh.ranks.size(); ++i) {
    if (mesh.ranks[i] >= core::kMaxRanks) {
      return field_error(index_path(at("ranks"), i),
                         std::to_string(mesh.ranks[i]) + " is not below the supported maximum " +
                             std::to_string(core::kMaxRanks) + core::limit_note("kMaxRanks"));
    }
  }
  DTPLAN_CHECK(check_flattened(mesh, built, base));
  if (mesh.hardware.empty()) return field_error(at("hardware"), "names no hardware profile");
  return {};
}

core::Status check_read_plan(const RedistPlan& plan, const MeshContext& ctx,
                             const std::string& base) {
  const auto at = [&](std::string_view key) { return join_path(base, key); };
  if (plan.requested == PlannerKind::kAuto && plan.planner == PlannerKind::kAuto) {
    return field_error(at("planner"), "names the planner that ran: greedy or min-cost");
  }
  const PlannerKind ran = resolved_planner(plan.requested, plan.src, plan.dst);
  if (plan.planner != ran) {
    return field_error(at("planner"), "requested_planner " +
                                          std::string(planner_name(plan.requested)) + " runs " +
                                          std::string(planner_name(ran)) + " for these specs");
  }
  if (auto kind = parse_cost_model(plan.model, "model"); !kind.ok()) {
    return field_error(at("model"), kind.error().message);
  }
  DTPLAN_CHECK(check_steps(plan, ctx, base));
  return check_warnings(plan, base);
}

PriceCheck::PriceCheck(const MeshContext& ctx, cost::HardwareProfile profile)
    : ctx_(&ctx), profile_(std::move(profile)) {}

core::Result<PriceCheck> PriceCheck::make(const MeshContext& ctx,
                                          const cost::HardwareProfile& profile,
                                          const std::string& mesh_path) {
  if (profile.name != ctx.hardware()) {
    return field_error(
        join_path(mesh_path, "hardware"),
        "the profile given is " + quoted(profile.name) + ", not " + quoted(ctx.hardware()));
  }
  if (ctx.gpus_per_node() > profile.node.gpus_per_node) {
    return field_error(join_path(mesh_path, "gpus_per_node"),
                       std::to_string(ctx.gpus_per_node()) + " is more than the " +
                           std::to_string(profile.node.gpus_per_node) + " GPUs per node of " +
                           quoted(profile.name));
  }
  return PriceCheck(ctx, profile);
}

core::Status PriceCheck::check(const RedistPlan& plan, const std::string& base) {
  DTPLAN_TRY(CostModelKind kind, parse_cost_model(plan.model, "model"));
  const auto k = static_cast<std::size_t>(kind);
  if (!pricers_[k]) {
    models_[k] = make_cost_model(kind, profile_);
    pricers_[k] = std::make_unique<StepPricer>(*ctx_, *models_[k]);
  }
  RedistState before = plan.start;
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep& s = plan.steps[i];
    const std::string at = index_path(join_path(base, "steps"), i);
    DTPLAN_TRY(StepQuery q,
               make_query(*ctx_, plan.src.shape(), plan.src.dtype(), before, s.transform));
    auto priced = pricers_[k]->price(q);
    if (!priced.ok()) return field_error(at, priced.error().message);
    const std::string model = " (the " + plan.model + " model on " + quoted(profile_.name) + ")";
    if (to_ps(s.cost_us) != priced->cost_ps) {
      return field_error(join_path(at, "cost_us"),
                         core::format_fixed(s.cost_us, 6) + " is not the step's price, " +
                             core::format_fixed(priced->price.cost_us, 6) + model +
                             "; the plan was edited or made with another profile: plan again");
    }
    if (s.algorithm != priced->price.algorithm || s.protocol != priced->price.protocol) {
      const bool algo = s.algorithm != priced->price.algorithm;
      return field_error(join_path(at, algo ? "algorithm" : "protocol"),
                         "the step's price runs " +
                             std::string(cost::algorithm_name(priced->price.algorithm)) + "/" +
                             std::string(cost::protocol_name(priced->price.protocol)) + model);
    }
    before = s.state;
  }
  return {};
}

core::Status check_plan_prices(const RedistPlan& plan, const cost::HardwareProfile& profile) {
  DTPLAN_TRY(mesh::DeviceMesh built, build_described_mesh(plan.mesh));
  DTPLAN_TRY(MeshContext ctx,
             MeshContext::make(built, plan.mesh.gpus_per_node, plan.mesh.hardware));
  DTPLAN_TRY(PriceCheck check, PriceCheck::make(ctx, profile, "mesh"));
  return check.check(plan, "");
}

}  // namespace dtplan::redist
