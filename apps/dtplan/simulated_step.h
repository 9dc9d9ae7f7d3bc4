#pragma once
// How `dtplan simulate` reads a whole-model plan, shared by compare and the plan headline: the
// plan file read and checked, its hardware profile loaded (the plan's mesh.hardware, found like
// --hardware), every priced figure checked against that profile (plan/plan_check.h), and the
// step simulated with simulate's defaults (sim::simulate_step, its figures only; they equal the
// full run's) with the throughput of simulate_timeline.h.
//
//   DTPLAN_TRY(plan::ComparedPlan p, load_simulated_plan("fsdp.json"));  // p.step.step_time_us
//   DTPLAN_TRY(plan::StepFigures s, simulated_step(plan, profile));      // a plan in memory

#include <string>

#include "core/result.h"
#include "cost/hardware.h"
#include "plan/plan.h"
#include "plan/plan_compare.h"

namespace dtplan::cli {

// The hardware profile `plan` names, with the plan's prices checked against it. Errors name the
// plan's mesh.hardware field or the figure at fault (without the file: callers add it).
core::Result<cost::HardwareProfile> checked_profile(const plan::Plan& plan);

// The simulated step of `plan` on `profile` with simulate's default flags: step time, compute,
// communication, exposed communication, and tokens/s per GPU and MFU where the plan and profile
// give them.
core::Result<plan::StepFigures> simulated_step(const plan::Plan& plan,
                                               const cost::HardwareProfile& profile);

// The plan in `path` read, checked and simulated as above; label is left empty. Errors carry
// the path as context.
core::Result<plan::ComparedPlan> load_simulated_plan(const std::string& path);

}  // namespace dtplan::cli
