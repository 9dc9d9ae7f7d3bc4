#include "plan/plan.h"

#include <algorithm>
#include <set>
#include <string>
#include <unordered_set>

#include "core/field_path.h"

namespace dtplan::plan {

std::string_view phase_name(Phase phase) {
  return phase == Phase::kForward ? "forward" : "backward";
}

core::Result<Phase> parse_phase(std::string_view text, std::string_view what) {
  for (Phase p : {Phase::kForward, Phase::kBackward}) {
    if (phase_name(p) == text) return p;
  }
  return core::Error::bad_input(std::string(what) + ": unknown phase '" + std::string(text) +
                                "'; expected forward or backward");
}

std::string_view op_schedule_name(OpSchedule schedule) {
  switch (schedule) {
    case OpSchedule::kRecompute:
      return "recompute";
    case OpSchedule::kGradient:
      return "gradient";
    case OpSchedule::kMicrobatch:
      break;
  }
  return "microbatch";
}

core::Result<OpSchedule> parse_op_schedule(std::string_view text, std::string_view what) {
  for (OpSchedule s : {OpSchedule::kMicrobatch, OpSchedule::kRecompute, OpSchedule::kGradient}) {
    if (op_schedule_name(s) == text) return s;
  }
  return core::Error::bad_input(std::string(what) + ": unknown schedule '" + std::string(text) +
                                "'; expected microbatch, recompute or gradient");
}

namespace {

using core::field_error;
using core::index_path;
using core::join_path;

std::string op_path(std::size_t i, std::string_view key) {
  return join_path(index_path("ops", i), key);
}

core::Status check_ops(const Plan& plan) {
  std::unordered_set<std::string_view> names;
  const std::size_t ndim = plan.mesh.shape.size();
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const PlanOp& op = plan.ops[i];
    if (op.name.empty()) return field_error(op_path(i, "name"), "empty name");
    if (!names.insert(op.name).second) {
      return field_error(op_path(i, "name"), "duplicate op name '" + op.name + "'");
    }
    for (std::size_t s = 0; s < op.inputs.size(); ++s) {
      const std::int32_t p = op.inputs[s];
      if (p < 0 || static_cast<std::size_t>(p) >= i) {
        return field_error(index_path(op_path(i, "inputs"), s),
                           std::to_string(p) + " is not an earlier op than '" + op.name + "'");
      }
    }
    if (op.placements.size() != ndim) {
      return field_error(op_path(i, "placements"), "has " + std::to_string(op.placements.size()) +
                                                       " entries, the mesh has " +
                                                       std::to_string(ndim) + " dims");
    }
    if (op.compute_us < 0) return field_error(op_path(i, "compute_us"), "negative");
  }
  return {};
}

core::Status check_redistribution(const Plan& plan, std::size_t r) {
  const PlanRedistribution& rd = plan.redistributions[r];
  const std::string at = index_path("redistributions", r);
  const auto n = static_cast<std::int32_t>(plan.ops.size());
  if (rd.consumer < 0 || rd.consumer >= n) {
    return field_error(join_path(at, "consumer"), std::to_string(rd.consumer) + " is not an op");
  }
  const PlanOp& consumer = plan.ops[static_cast<std::size_t>(rd.consumer)];
  if (rd.slot < 0 || static_cast<std::size_t>(rd.slot) >= consumer.inputs.size()) {
    // The slot, or the consumer, is wrong: the redistribution is named.
    return field_error(at, "slot " + std::to_string(rd.slot) +
                               " is not an input of its consumer '" + consumer.name + "'");
  }
  if (consumer.inputs[static_cast<std::size_t>(rd.slot)] != rd.producer) {
    // Its consumer, slot or producer, or the consumer's inputs: the redistribution is named.
    return field_error(
        at, "producer " + std::to_string(rd.producer) + " does not feed slot " +
                std::to_string(rd.slot) + " of '" + consumer.name + "' (" +
                index_path(op_path(static_cast<std::size_t>(rd.consumer), "inputs"),
                           static_cast<std::size_t>(rd.slot)) +
                " is " + std::to_string(consumer.inputs[static_cast<std::size_t>(rd.slot)]) + ")");
  }
  if (r > 0) {
    const PlanRedistribution& prev = plan.redistributions[r - 1];
    if (std::pair(prev.consumer, prev.slot) >= std::pair(rd.consumer, rd.slot)) {
      return field_error(at, "not in (consumer, slot) order");
    }
  }
  if (rd.plan.mesh != plan.mesh) return field_error(at, "its mesh is not the plan's mesh");
  return redist::check_plan(rd.plan, at);
}

// A fused matmul's collective step: it exists, is its kind's collective on more than one rank,
// and no other fused matmul takes it.
core::Status check_fused_step(const Plan& plan, const FusedMatmul& f, const StepRef& ref,
                              const std::string& at, std::set<StepRef>& taken) {
  if (ref.redistribution < 0 ||
      static_cast<std::size_t>(ref.redistribution) >= plan.redistributions.size()) {
    return field_error(at,
                       "redistribution " + std::to_string(ref.redistribution) + " does not exist");
  }
  const auto& steps = plan.redistributions[static_cast<std::size_t>(ref.redistribution)].plan.steps;
  if (ref.step < 0 || static_cast<std::size_t>(ref.step) >= steps.size()) {
    return field_error(at, "step " + std::to_string(ref.step) + " does not exist");
  }
  const redist::PlanStep& step = steps[static_cast<std::size_t>(ref.step)];
  const auto want = f.kind == FusedKind::kAllGatherMatmul ? collective::Collective::kAllGather
                                                          : collective::Collective::kReduceScatter;
  if (redist::collective_of(step.transform.kind) != want || step.group_size <= 1) {
    return field_error(
        at, "is not a " + std::string(collective::name(want)) + " on more than one rank");
  }
  if (!taken.insert(ref).second) return field_error(at, "is fused twice");
  return {};
}

core::Status check_fused(const Plan& plan) {
  if (!plan.fused_matmuls.empty() && plan.training.async_tp != core::AsyncTp::kOn) {
    return field_error("fused_matmuls", "present without training.async_tp");
  }
  std::set<StepRef> taken_steps;
  std::set<std::int32_t> taken_ops;
  for (std::size_t k = 0; k < plan.fused_matmuls.size(); ++k) {
    const FusedMatmul& f = plan.fused_matmuls[k];
    const std::string at = index_path("fused_matmuls", k);
    if (f.matmuls.empty() || f.collectives.empty()) {
      return field_error(at, "needs at least one matmul and one collective");
    }
    for (std::size_t i = 0; i < f.matmuls.size(); ++i) {
      const std::int32_t op = f.matmuls[i];
      if (op < 0 || static_cast<std::size_t>(op) >= plan.ops.size() ||
          (i > 0 && op <= f.matmuls[i - 1]) || !taken_ops.insert(op).second) {
        return field_error(index_path(join_path(at, "matmuls"), i),
                           std::to_string(op) + " is not a new op in ascending order");
      }
    }
    for (std::size_t i = 0; i < f.collectives.size(); ++i) {
      const std::string cat = index_path(join_path(at, "collectives"), i);
      if (i > 0 && !(f.collectives[i - 1] < f.collectives[i])) {
        return field_error(cat, "not in ascending order");
      }
      DTPLAN_CHECK(check_fused_step(plan, f, f.collectives[i], cat, taken_steps));
    }
  }
  return {};
}

}  // namespace

core::Status check_plan(const Plan& plan) {
  DTPLAN_CHECK(check_ops(plan));
  for (std::size_t r = 0; r < plan.redistributions.size(); ++r) {
    DTPLAN_CHECK(check_redistribution(plan, r));
  }
  return check_fused(plan);
}

}  // namespace dtplan::plan
