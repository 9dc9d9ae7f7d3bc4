#include "sweep/plan_evaluator.h"

#include <cmath>

#include "core/units.h"
#include "sim/throughput.h"
#include "sim/timeline.h"
#include "solve/solver.h"

namespace dtplan::sweep {

namespace {

MeshEvaluation plan_total(const plan::Plan& plan) {
  MeshEvaluation e;
  e.step_time_us = plan.cost.total_us;
  e.compute_us = plan.cost.compute_us;
  e.communication_us = plan.cost.communication_us;
  e.exposed_us = plan.cost.communication_us;
  return e;
}

// The step's throughput (sim/throughput.h) over every rank of the plan's mesh; left 0 for a
// model without a token input or hardware without a bf16 peak.
void add_throughput(const plan::Plan& plan, const std::optional<cost::HardwareProfile>& hardware,
                    MeshEvaluation& e) {
  if (!hardware) return;
  const double peak = hardware->gpu.peak_flop_per_s[static_cast<std::size_t>(core::DType::kBF16)];
  std::int64_t gpus = 1;
  for (std::int64_t d : plan.mesh.shape) gpus *= d;
  if (!(peak > 0) || !(e.step_time_us > 0)) return;
  auto rate = sim::plan_throughput(plan, e.step_time_us, gpus, peak);
  if (!rate.ok()) return;
  e.tokens_per_step = rate->tokens_per_step;
  e.tokens_per_s_per_gpu = rate->tokens_per_s_per_gpu;
  e.mfu = rate->mfu;
}

}  // namespace

core::Result<MeshEvaluation> evaluate_plan(const plan::Plan& plan,
                                           const PlanEvaluatorOptions& options) {
  MeshEvaluation e;
  if (options.step == StepModel::kPlanTotal) {
    e = plan_total(plan);
  } else {
    // A sweep reads the step's figures only.
    sim::TimelineOptions timeline_options = options.timeline;
    timeline_options.step_only = true;
    auto timeline = sim::simulate_step(plan, timeline_options);
    if (timeline.ok()) {
      e.step_time_us = timeline->step_time_us;
      e.compute_us = timeline->compute_us;
      e.communication_us = timeline->communication_us;
      e.exposed_us = timeline->exposed_communication_us;
    } else if (timeline.error().kind == core::ErrorKind::kUnsupported) {
      e = plan_total(plan);
      e.note = "not simulated (" + timeline.error().message + "): plan total, no overlap";
    } else {
      return timeline.error();
    }
  }
  e.memory_bytes_per_rank = plan.memory.peak_bytes_per_rank;
  add_throughput(plan, options.timeline.hardware, e);
  e.optimal = plan.solver.optimal;
  e.feasible = true;
  if (!e.optimal && plan.solver.name == "exact") {
    // Stopped by the gap asked for, or by a limit: how far the plan may be from optimal. A plan
    // that does not say why is taken as stopped by the gap where it is within it.
    const double objective = plan.solver.objective_us;
    const double gap = (objective - plan.solver.lower_bound_us) / std::fabs(objective);
    // A reason this build does not know reads as the time limit.
    using solve::StopReason;
    const StopReason why =
        solve::parse_stop_reason(plan.solver.stop_reason).value_or(StopReason::kTimeLimit);
    const bool by_gap =
        why == StopReason::kGap || (why == StopReason::kNone && gap <= options.relative_gap);
    const std::string reason = by_gap                           ? "--gap"
                               : why == StopReason::kPointLimit ? "frontier point limit"
                                                                : "time limit";
    const std::string percent = 100 * gap < 0.00005 ? "< 0.0001" : core::format_fixed(100 * gap, 4);
    e.note += std::string(e.note.empty() ? "" : "; ") + "exact solver stopped " + percent +
              "% above its lower bound (" + reason + ")";
  }
  return e;
}

core::Result<MeshEvaluation> PlanEvaluator::evaluate(const MeshCandidate& candidate) const {
  DTPLAN_TRY(plan::Plan plan, plan_(candidate));
  if (options_.on_plan) DTPLAN_CHECK(options_.on_plan(candidate, plan));
  return evaluate_plan(plan, options_);
}

std::string PlanEvaluator::description() const {
  return options_.planner + (options_.step == StepModel::kSimulate ? " + step simulator"
                                                                   : " + plan total (no overlap)");
}

}  // namespace dtplan::sweep
