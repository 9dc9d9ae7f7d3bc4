#include "plan/plan_check.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "core/checked.h"
#include "core/field_path.h"
#include "core/strings.h"
#include "core/units.h"
#include "placement/placement_text.h"
#include "placement/tensor_spec.h"
#include "plan/async_tp.h"
#include "plan/plan_summary.h"
#include "redist/redist_plan_check.h"
#include "redist/step_pricer.h"

namespace dtplan::plan {

namespace {

using core::field_error;
using core::index_path;
using core::join_path;
using Placements = std::vector<placement::Placement>;

std::string op_path(std::size_t i, std::string_view key) {
  return join_path(index_path("ops", i), key);
}

// A summed figure read back against its recomputation: equal up to summation order.
bool same_sum(double stored, double computed) {
  return std::abs(stored - computed) <= 1e-6 + 1e-9 * std::abs(computed);
}

// The lists of a strategy's text as strategy::format_strategy writes it: the output lists, then
// " <-", then the input lists, lists separated by "; ", a '*' after a masked partial output.
struct StrategyLists {
  std::vector<Placements> outputs;
  std::vector<Placements> inputs;
};

core::Result<std::vector<Placements>> parse_lists(std::string_view text) {
  std::vector<Placements> out;
  if (text.empty()) return out;
  for (std::string_view item : core::split(text, ';')) {
    std::string list(core::trim(item));
    std::erase(list, '*');
    DTPLAN_TRY(placement::PlacementList parsed, placement::parse_placement_list(list, "strategy"));
    out.push_back(std::move(parsed.placements));
  }
  return out;
}

// nullopt for a strategy written as the op's placements alone (hand-made plans).
core::Result<std::optional<StrategyLists>> parse_strategy(std::string_view text) {
  const std::size_t arrow = text.find(" <-");
  if (arrow == std::string_view::npos) return std::optional<StrategyLists>();
  StrategyLists lists;
  DTPLAN_TRY(lists.outputs, parse_lists(text.substr(0, arrow)));
  DTPLAN_TRY(lists.inputs, parse_lists(text.substr(arrow + 3)));
  return std::optional<StrategyLists>(std::move(lists));
}

core::Status check_layers(const Plan& plan) {
  if (plan.layers < 0) return field_error("layers", "must be >= 0");
  std::set<std::int32_t> layers;
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const std::int32_t layer = plan.ops[i].layer;
    if (layer < -1 || layer >= plan.layers) {
      return field_error(op_path(i, "layer"), std::to_string(layer) +
                                                  " is not -1 or a layer in [0, " +
                                                  std::to_string(plan.layers) + ")");
    }
    if (layer >= 0) layers.insert(layer);
  }
  // A plan whose ops carry no layer may also say 1: the whole model as one layer (hand-made
  // plans do; the lowering writes 0).
  const bool one_block = layers.empty() && plan.layers == 1;
  if (static_cast<std::size_t>(plan.layers) != layers.size() && !one_block) {
    return field_error("layers", std::to_string(plan.layers) + " is not the number of layers " +
                                     "the ops are in (" + std::to_string(layers.size()) + ")");
  }
  return {};
}

// The fields of one op that need no other op.
core::Status check_op(const Plan& plan, std::size_t i) {
  const PlanOp& op = plan.ops[i];
  DTPLAN_CHECK(
      redist::check_tensor_shape(op.shape, op.dtype, plan.mesh.shape, op_path(i, "shape")));
  auto spec = placement::TensorSpec::make(op.shape, op.dtype, op.placements, plan.mesh.shape);
  if (!spec.ok()) return field_error(op_path(i, "placements"), spec.error().message);
  if (spec->placements() != op.placements) {
    return field_error(op_path(i, "placements"), "not in the form the writer gives, " +
                                                     placement::format_placement_list(*spec));
  }
  const bool graph_input = op.role == core::OpRole::kParam || op.role == core::OpRole::kInput ||
                           op.role == core::OpRole::kTangent;
  if (graph_input && op.op != kPlaceholderOp) {
    return field_error(
        op_path(i, "op"),
        "an op with role '" + std::string(core::plan_role_name(op.role)) + "' is a placeholder");
  }
  if (op.op.empty()) return field_error(op_path(i, "op"), "is empty");
  if (op.op == kPlaceholderOp && !op.inputs.empty()) {
    return field_error(op_path(i, "inputs"), "a placeholder has no inputs");
  }
  const double max_us = static_cast<double>(redist::kMaxCostPs) / 1e6;
  if (!std::isfinite(op.compute_us) || op.compute_us < 0 || op.compute_us > max_us) {
    return field_error(op_path(i, "compute_us"),
                       "is not a time in [0, " + core::format_fixed(max_us, 0) + "] us");
  }
  if (op.options < 1) return field_error(op_path(i, "options"), "must be >= 1");
  return {};
}

// An op's strategy text against its placements and inputs; its lists when it has them.
core::Result<std::optional<StrategyLists>> check_strategy(const Plan& plan, std::size_t i) {
  const PlanOp& op = plan.ops[i];
  const std::string path = op_path(i, "strategy");
  auto parsed = parse_strategy(op.strategy);
  if (!parsed.ok()) return field_error(path, parsed.error().message);
  if (!*parsed) {
    auto list = placement::parse_placement_list(op.strategy, "strategy");
    if (!list.ok() || list->placements != op.placements) {
      return field_error(path, "'" + op.strategy + "' is neither 'OUTPUTS <- INPUTS' nor the " +
                                   "op's placements");
    }
    return parsed;
  }
  const StrategyLists& lists = **parsed;
  const Placements first =
      lists.outputs.empty() ? Placements(plan.mesh.shape.size()) : lists.outputs[0];
  if (first != op.placements) {
    return field_error(path, "its first output is " + placement::format_placements(first) +
                                 ", the op's placements " +
                                 placement::format_placements(op.placements));
  }
  if (lists.inputs.size() < op.inputs.size()) {
    return field_error(path, "lists " + std::to_string(lists.inputs.size()) +
                                 " inputs, the op has " + std::to_string(op.inputs.size()));
  }
  for (const std::vector<Placements>* group : {&lists.outputs, &lists.inputs}) {
    for (const Placements& p : *group) {
      if (p.size() != plan.mesh.shape.size()) {
        return field_error(path, "a list of " + std::to_string(p.size()) +
                                     " placements on a mesh of " +
                                     std::to_string(plan.mesh.shape.size()) + " dims");
      }
    }
  }
  return parsed;
}

// A redistribution against the ops it connects.
core::Status check_edge(const Plan& plan, std::size_t r,
                        const std::vector<std::optional<StrategyLists>>& lists) {
  const PlanRedistribution& rd = plan.redistributions[r];
  const std::string at = index_path("redistributions", r);
  const auto consumer_index = static_cast<std::size_t>(rd.consumer);
  const PlanOp& consumer = plan.ops[consumer_index];
  const PlanOp& producer = plan.ops[static_cast<std::size_t>(rd.producer)];
  const bool getitem = consumer.op == kGetitemOp;
  const PlanOp& owner = getitem ? consumer : producer;  // whose output the tensor is
  if (rd.plan.src.shape() != owner.shape || rd.plan.src.dtype() != owner.dtype) {
    return field_error(
        join_path(at, rd.plan.src.shape() != owner.shape ? "tensor.shape" : "tensor.dtype"),
        "is not the output of '" + owner.name + "' (" + std::string(core::dtype_name(owner.dtype)) +
            core::format_int_list(owner.shape) + ")");
  }
  if (!getitem && rd.plan.src.placements() != producer.placements) {
    return field_error(join_path(at, "src"), "is not the placements of '" + producer.name + "', " +
                                                 placement::format_placements(producer.placements));
  }
  const std::optional<StrategyLists>& needs = lists[consumer_index];
  if (needs && needs->inputs[static_cast<std::size_t>(rd.slot)] != rd.plan.dst.placements()) {
    return field_error(
        join_path(at, "dst"),
        "is not what the strategy of '" + consumer.name + "' takes at input " +
            std::to_string(rd.slot) + ", " +
            placement::format_placements(needs->inputs[static_cast<std::size_t>(rd.slot)]));
  }
  return {};
}

// Every input slot whose consumer lists its inputs is redistributed exactly when its producer's
// placements differ from the list (the lowering plans one there and nowhere else).
core::Status check_slots(const Plan& plan, const std::vector<std::optional<StrategyLists>>& lists) {
  std::set<std::pair<std::int32_t, std::int32_t>> redistributed;
  for (const PlanRedistribution& rd : plan.redistributions) {
    redistributed.emplace(rd.consumer, rd.slot);
  }
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const PlanOp& op = plan.ops[i];
    if (!lists[i] || op.op == kGetitemOp) continue;
    for (std::size_t s = 0; s < op.inputs.size(); ++s) {
      const PlanOp& producer = plan.ops[static_cast<std::size_t>(op.inputs[s])];
      const bool differ = lists[i]->inputs[s] != producer.placements;
      const bool has =
          redistributed.contains({static_cast<std::int32_t>(i), static_cast<std::int32_t>(s)});
      // The op's inputs, its strategy or its producer's placements may be at fault: the op is
      // named, and the input slot.
      const std::string input = index_path(op_path(i, "inputs"), s) + " '" + producer.name + "'";
      if (differ && !has) {
        return field_error(index_path("ops", i),
                           input + " gives " + placement::format_placements(producer.placements) +
                               ", its strategy needs " +
                               placement::format_placements(lists[i]->inputs[s]) +
                               ", and no redistribution converts it");
      }
      if (!differ && has) {
        return field_error(index_path("ops", i),
                           input +
                               " is redistributed, but it already gives what the strategy "
                               "needs, " +
                               placement::format_placements(producer.placements));
      }
    }
  }
  return {};
}

core::Status check_cost_summary(const Plan& plan) {
  const CostSummary c = cost_summary(plan);
  for (auto [key, member] : {std::pair{"compute_us", &CostSummary::compute_us},
                             std::pair{"communication_us", &CostSummary::communication_us},
                             std::pair{"redistribution_us", &CostSummary::redistribution_us},
                             std::pair{"total_us", &CostSummary::total_us}}) {
    if (!same_sum(plan.cost.*member, c.*member)) {
      return field_error(join_path("cost", key), core::format_fixed(plan.cost.*member, 6) +
                                                     " is not the sum over the " + "plan (" +
                                                     core::format_fixed(c.*member, 6) + ")");
    }
  }
  return {};
}

core::Status check_collectives(const Plan& plan) {
  const std::vector<CollectiveSummary> rows = collective_summary(plan);
  if (plan.collectives.size() != rows.size()) {
    return field_error("collectives", "lists " + std::to_string(plan.collectives.size()) +
                                          " rows, the steps make " + std::to_string(rows.size()));
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const CollectiveSummary& a = plan.collectives[i];
    const CollectiveSummary& b = rows[i];
    const std::string at = index_path("collectives", i);
    const char* wrong = a.kind != b.kind                  ? "collective"
                        : a.mesh_dims != b.mesh_dims      ? "mesh_dims"
                        : a.flattened != b.flattened      ? "flattened_mesh"
                        : a.group_size != b.group_size    ? "group_size"
                        : a.count != b.count              ? "count"
                        : a.bytes != b.bytes              ? "bytes"
                        : !same_sum(a.time_us, b.time_us) ? "time_us"
                                                          : nullptr;
    if (wrong != nullptr) {
      return field_error(join_path(at, wrong), "does not match the steps of the plan (count " +
                                                   std::to_string(b.count) + ", bytes " +
                                                   std::to_string(b.bytes) + ", time_us " +
                                                   core::format_fixed(b.time_us, 6) + ")");
    }
  }
  return {};
}

// The redistributions' warnings (warning_summary) first, then the lowering's own.
core::Status check_warnings(const Plan& plan) {
  const std::vector<redist::Warning> derived = warning_summary(plan);
  std::set<std::pair<std::vector<std::int32_t>, redist::WarningReason>> seen;
  const auto ndim = static_cast<std::int32_t>(plan.mesh.shape.size());
  for (std::size_t i = 0; i < plan.warnings.size(); ++i) {
    const redist::Warning& w = plan.warnings[i];
    const std::string at = index_path("warnings", i);
    if (i < derived.size() && w != derived[i]) {
      return field_error(at,
                         "is not the warning of the redistributions, '" + derived[i].message + "'");
    }
    const bool dims_ok =
        !w.mesh_dims.empty() && std::is_sorted(w.mesh_dims.begin(), w.mesh_dims.end()) &&
        std::adjacent_find(w.mesh_dims.begin(), w.mesh_dims.end()) == w.mesh_dims.end() &&
        w.mesh_dims.front() >= 0 && w.mesh_dims.back() < ndim;
    if (!dims_ok) {
      return field_error(
          join_path(at, "mesh_dims"),
          "must be ascending, distinct mesh dims of the mesh (" + std::to_string(ndim) + " dims)");
    }
    if (w.message.empty()) return field_error(join_path(at, "message"), "is empty");
    if (!seen.emplace(w.mesh_dims, w.reason).second) {
      return field_error(at, "repeats an earlier warning's mesh dims and reason");
    }
  }
  if (plan.warnings.size() < derived.size()) {
    return field_error("warnings", "lacks the warning of the redistributions, '" +
                                       derived[plan.warnings.size()].message + "'");
  }
  return {};
}

// The step's options against the ops' schedules: recomputed ops are forward ops in a layer and
// exist only under a checkpoint policy; gradient ops are backward ops.
core::Status check_training(const Plan& plan) {
  const core::TrainingOptions& t = plan.training;
  if (t.grad_accum < 1 || t.grad_accum > core::kMaxMicrobatches) {
    return field_error("training.grad_accum", std::to_string(t.grad_accum) + " is not in [1, " +
                                                  std::to_string(core::kMaxMicrobatches) + "]");
  }
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const PlanOp& op = plan.ops[i];
    if (op.schedule == OpSchedule::kRecompute &&
        (op.phase != Phase::kForward || op.layer < 0 ||
         t.checkpoint == core::CheckpointPolicy::kNone || op.op == kPlaceholderOp)) {
      return field_error(op_path(i, "schedule"),
                         "only a forward op of a layer is recomputed, under a checkpoint policy "
                         "(training.checkpoint is " +
                             std::string(core::checkpoint_policy_name(t.checkpoint)) + ")");
    }
    if (op.schedule == OpSchedule::kGradient && op.phase != Phase::kBackward) {
      return field_error(op_path(i, "schedule"), "a gradient op is a backward op");
    }
  }
  return {};
}

core::Status check_memory(const MemorySummary& m) {
  std::int64_t sum = 0;
  for (std::int64_t part :
       {m.parameter_bytes, m.gradient_bytes, m.optimizer_bytes, m.activation_bytes}) {
    auto next = core::checked_add(sum, part, "memory");
    if (!next.ok()) return field_error("memory", next.error().message);
    sum = *next;
  }
  if (m.peak_bytes_per_rank != sum) {
    return field_error("memory.peak_bytes_per_rank",
                       std::to_string(m.peak_bytes_per_rank) + " is not the sum of the " +
                           "parameter, gradient, optimizer and activation bytes (" +
                           std::to_string(sum) + ")");
  }
  return {};
}

}  // namespace

core::Status check_read_plan(const Plan& plan) {
  if (plan.model.empty()) return field_error("model", "is empty");
  DTPLAN_CHECK(check_layers(plan));
  DTPLAN_CHECK(check_training(plan));
  std::vector<std::optional<StrategyLists>> lists;
  std::int64_t strategies = 0;
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    DTPLAN_CHECK(check_op(plan, i));
    DTPLAN_TRY(std::optional<StrategyLists> l, check_strategy(plan, i));
    lists.push_back(std::move(l));
    strategies += plan.ops[i].options;
  }
  if (plan.strategies != strategies) {
    return field_error("strategies", std::to_string(plan.strategies) +
                                         " is not the sum of the ops' options (" +
                                         std::to_string(strategies) + ")");
  }
  for (std::size_t r = 0; r < plan.redistributions.size(); ++r) {
    DTPLAN_CHECK(check_edge(plan, r, lists));
  }
  DTPLAN_CHECK(check_slots(plan, lists));
  DTPLAN_CHECK(check_cost_summary(plan));
  DTPLAN_CHECK(check_collectives(plan));
  DTPLAN_CHECK(check_warnings(plan));
  return check_memory(plan.memory);
}

namespace {

// A fused matmul read back against the one async TP finds and prices in the plan.
bool same_fused(const FusedMatmul& stored, const FusedMatmul& found) {
  return stored.kind == found.kind && stored.matmuls == found.matmuls &&
         stored.collectives == found.collectives && stored.chunks == found.chunks &&
         stored.chunk_bytes == found.chunk_bytes && same_sum(stored.copy_us, found.copy_us) &&
         same_sum(stored.fused_us, found.fused_us);
}

core::Status check_fused_prices(const Plan& plan, const cost::HardwareProfile& profile) {
  if (plan.training.async_tp != core::AsyncTp::kOn) return {};
  DTPLAN_TRY(const std::vector<FusedMatmul> found,
             find_fused_matmuls(plan, profile, "training.async_tp"));
  if (found.size() != plan.fused_matmuls.size()) {
    return field_error("fused_matmuls", std::to_string(plan.fused_matmuls.size()) +
                                            " entries, async TP finds " +
                                            std::to_string(found.size()) + " in this plan");
  }
  for (std::size_t k = 0; k < found.size(); ++k) {
    if (!same_fused(plan.fused_matmuls[k], found[k])) {
      return field_error(index_path("fused_matmuls", k),
                         "is not the fused matmul async TP finds and prices there (" +
                             std::string(fused_kind_name(found[k].kind)) + ", fused_us " +
                             std::to_string(found[k].fused_us) + ")");
    }
  }
  return {};
}

}  // namespace

core::Status check_plan_prices(const Plan& plan, const cost::HardwareProfile& profile) {
  DTPLAN_TRY(mesh::DeviceMesh built, redist::build_described_mesh(plan.mesh));
  DTPLAN_TRY(redist::MeshContext ctx,
             redist::MeshContext::make(built, plan.mesh.gpus_per_node, plan.mesh.hardware));
  DTPLAN_TRY(redist::PriceCheck check, redist::PriceCheck::make(ctx, profile, "mesh"));
  for (std::size_t r = 0; r < plan.redistributions.size(); ++r) {
    DTPLAN_CHECK(check.check(plan.redistributions[r].plan, index_path("redistributions", r)));
  }
  return check_fused_prices(plan, profile);
}

}  // namespace dtplan::plan
