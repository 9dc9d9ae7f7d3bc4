#include "plan/step_runs.h"

namespace dtplan::plan {

std::int64_t op_runs(OpSchedule schedule, const core::TrainingOptions& training) {
  return training.grad_accum * (schedule == OpSchedule::kRecompute ? 2 : 1);
}

bool reduces_once(OpSchedule producer, OpSchedule consumer, const core::TrainingOptions& training) {
  return training.grad_sync == core::GradSync::kLastMicrobatch &&
         producer == OpSchedule::kGradient && consumer == OpSchedule::kGradient;
}

std::int64_t redistribution_runs(OpSchedule producer, OpSchedule consumer,
                                 const core::TrainingOptions& training) {
  if (reduces_once(producer, consumer, training)) return 1;
  return op_runs(consumer, training);
}

std::int64_t op_runs(const Plan& plan, std::size_t op) {
  return op_runs(plan.ops[op].schedule, plan.training);
}

std::int64_t redistribution_runs(const Plan& plan, const PlanRedistribution& r) {
  return redistribution_runs(plan.ops[static_cast<std::size_t>(r.producer)].schedule,
                             plan.ops[static_cast<std::size_t>(r.consumer)].schedule,
                             plan.training);
}

}  // namespace dtplan::plan
