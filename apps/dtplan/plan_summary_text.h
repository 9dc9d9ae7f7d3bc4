#pragma once
// The one-screen text of `dtplan plan` (its --json and --out documents are elsewhere): the
// headline first, then what a reader acts on.
//
//   headline_text      model, mesh, hardware, step options; the simulated step (time, tokens/s
//                      per GPU, MFU); peak memory per rank against the limit; the solver's proof
//                      or gap; the problem's size
//   parameters_text    parameters by family (plan/parameter_family.h): placements and
//                      torchtitan's name (strategy/parallel_style.h), alike layers on one line
//   costliest_text     the ten costliest redistributions per step (plan/costliest.h)
//   totals_text        cost breakdown, collectives, memory per rank, warnings counted once

#include <optional>
#include <string>

#include "plan/plan.h"
#include "plan/plan_compare.h"
#include "strategy/plan_model.h"

namespace dtplan::cli {

// The simulated step where it could be simulated, else the reason it could not.
struct HeadlineStep {
  std::optional<plan::StepFigures> step;
  std::string unavailable;  // the error's message when step is empty
};

std::string headline_text(const strategy::ModelPlan& mp, const HeadlineStep& step);

std::string parameters_text(const plan::Plan& plan);

// At most `n` rows.
std::string costliest_text(const plan::Plan& plan, std::size_t n);

std::string totals_text(const plan::Plan& plan);

}  // namespace dtplan::cli
