#include "simulated_step.h"

#include "hardware_arg.h"
#include "plan/plan_check.h"
#include "plan/plan_io.h"
#include "sim/timeline.h"
#include "simulate_timeline.h"

namespace dtplan::cli {

core::Result<cost::HardwareProfile> checked_profile(const plan::Plan& plan) {
  DTPLAN_TRY(cost::HardwareProfile profile,
             load_hardware_arg(plan.mesh.hardware, "the plan's mesh.hardware"));
  DTPLAN_CHECK(plan::check_plan_prices(plan, profile));
  return profile;
}

core::Result<plan::StepFigures> simulated_step(const plan::Plan& plan,
                                               const cost::HardwareProfile& profile) {
  DTPLAN_TRY(sim::TimelineOptions options, timeline_options(plan, TimelineFlags{}));
  options.step_only = true;  // the step's figures only; they equal the full run's
  DTPLAN_TRY(sim::Timeline timeline, sim::simulate_step(plan, options));
  plan::StepFigures step{.step_time_us = timeline.step_time_us,
                         .compute_us = timeline.compute_us,
                         .communication_us = timeline.communication_us,
                         .exposed_communication_us = timeline.exposed_communication_us};
  if (auto rate = step_throughput(plan, timeline, profile)) {
    step.tokens_per_s_per_gpu = rate->tokens_per_s_per_gpu;
    step.mfu = rate->mfu;
  }
  return step;
}

core::Result<plan::ComparedPlan> load_simulated_plan(const std::string& path) {
  plan::ComparedPlan out;
  DTPLAN_TRY(out.plan, plan::load_plan_file(path));
  auto profile = checked_profile(out.plan);
  if (!profile.ok()) return profile.error().with_context(path);
  auto step = simulated_step(out.plan, *profile);
  if (!step.ok()) return step.error().with_context(path);
  out.step = *step;
  return out;
}

}  // namespace dtplan::cli
