#pragma once
// How many times each op and each redistribution of a plan runs in one training step of
// plan.training.grad_accum microbatches (N):
//   op               N, doubled for OpSchedule::kRecompute (its forward run and its recompute);
//   redistribution   N x (2 if its consumer is recomputed: the recompute redistributes its inputs
//                    again, 1 otherwise); 1 when both its producer and consumer are kGradient ops
//                    and the gradient sync is kLastMicrobatch (the reduction runs on the last
//                    microbatch only).
// The optimizer step is not an op of the plan. The cost and collective summaries
// (plan_summary.h), the solver's objective (strategy) and the step simulation (sim) all count
// with these functions.
//
//   Training {.grad_accum = 4}: op_runs(kRecompute, t) == 8; redistribution_runs(kGradient,
//   kGradient, t) == 4, or 1 with grad_sync kLastMicrobatch

#include <cstdint>

#include "plan/plan.h"

namespace dtplan::plan {

std::int64_t op_runs(OpSchedule schedule, const core::TrainingOptions& training);
std::int64_t redistribution_runs(OpSchedule producer, OpSchedule consumer,
                                 const core::TrainingOptions& training);

// The same for the ops and redistributions of `plan` (indices valid, check_plan passed).
std::int64_t op_runs(const Plan& plan, std::size_t op);
std::int64_t redistribution_runs(const Plan& plan, const PlanRedistribution& redistribution);

// Whether a redistribution runs on the last microbatch only (the gradient reductions under
// GradSync::kLastMicrobatch).
bool reduces_once(OpSchedule producer, OpSchedule consumer, const core::TrainingOptions& training);

}  // namespace dtplan::plan
