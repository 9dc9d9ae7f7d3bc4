#include "plan/plan.h"

#include <string>
#include <unordered_set>

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

namespace {

std::string op_label(const Plan& plan, std::size_t i) {
  return "ops[" + std::to_string(i) + "] '" + plan.ops[i].name + "'";
}

core::Status check_ops(const Plan& plan) {
  std::unordered_set<std::string_view> names;
  const std::size_t ndim = plan.mesh.shape.size();
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const PlanOp& op = plan.ops[i];
    if (op.name.empty())
      return core::Error::bad_input("ops[" + std::to_string(i) + "]: empty name");
    if (!names.insert(op.name).second) {
      return core::Error::bad_input(op_label(plan, i) + ": duplicate op name");
    }
    for (std::size_t s = 0; s < op.inputs.size(); ++s) {
      const std::int32_t p = op.inputs[s];
      if (p < 0 || static_cast<std::size_t>(p) >= i) {
        return core::Error::bad_input(op_label(plan, i) + ": inputs[" + std::to_string(s) +
                                      "] = " + std::to_string(p) + " is not an earlier op");
      }
    }
    if (op.placements.size() != ndim) {
      return core::Error::bad_input(op_label(plan, i) + ": placements has " +
                                    std::to_string(op.placements.size()) +
                                    " entries, the mesh has " + std::to_string(ndim) + " dims");
    }
    if (op.compute_us < 0)
      return core::Error::bad_input(op_label(plan, i) + ": negative compute_us");
  }
  return {};
}

}  // namespace

core::Status check_plan(const Plan& plan) {
  DTPLAN_CHECK(check_ops(plan));
  const auto n = static_cast<std::int32_t>(plan.ops.size());
  for (std::size_t r = 0; r < plan.redistributions.size(); ++r) {
    const PlanRedistribution& rd = plan.redistributions[r];
    const std::string label = "redistributions[" + std::to_string(r) + "]";
    if (rd.consumer < 0 || rd.consumer >= n) {
      return core::Error::bad_input(label + ": consumer " + std::to_string(rd.consumer) +
                                    " is not an op");
    }
    const PlanOp& consumer = plan.ops[static_cast<std::size_t>(rd.consumer)];
    if (rd.slot < 0 || static_cast<std::size_t>(rd.slot) >= consumer.inputs.size()) {
      return core::Error::bad_input(label + ": slot " + std::to_string(rd.slot) +
                                    " is not an input of '" + consumer.name + "'");
    }
    if (consumer.inputs[static_cast<std::size_t>(rd.slot)] != rd.producer) {
      return core::Error::bad_input(label + ": producer " + std::to_string(rd.producer) +
                                    " does not feed slot " + std::to_string(rd.slot) + " of '" +
                                    consumer.name + "'");
    }
    if (r > 0) {
      const PlanRedistribution& prev = plan.redistributions[r - 1];
      if (std::pair(prev.consumer, prev.slot) >= std::pair(rd.consumer, rd.slot)) {
        return core::Error::bad_input(label + ": not in (consumer, slot) order");
      }
    }
    if (rd.plan.mesh != plan.mesh) {
      return core::Error::bad_input(label + ": its mesh is not the plan's mesh");
    }
    auto st = redist::check_plan(rd.plan);
    if (!st.ok()) return st.error().with_context(label);
  }
  return {};
}

}  // namespace dtplan::plan
