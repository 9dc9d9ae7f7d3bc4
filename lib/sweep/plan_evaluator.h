#pragma once
// PlanEvaluator: the sweep's default MeshEvaluator. For each mesh candidate it asks a plan
// function for the whole-model plan on that mesh (the exact solver, from `dtplan plan`'s
// pipeline), then turns the plan into the sweep's figures:
//   StepModel::kSimulate   the step simulator (sim::simulate_step): step time, compute,
//                          communication and exposed communication of the critical rank;
//   StepModel::kPlanTotal  the plan's cost summary with nothing overlapped: step = total_us,
//                          exposed = communication_us, other = redistribution_us.
// Memory is the plan's peak bytes per rank. A plan the simulator refuses for its size
// (kUnsupported: ranks x tasks over TimelineOptions::max_rank_tasks) falls back to kPlanTotal
// with a note saying so, so one large mesh does not drop out of the ranking.
//
//   PlanEvaluator ev([&](const MeshCandidate& c) { return plan_on(c); }, {});
//   MeshEvaluation e = ev.evaluate(candidate).value();

#include <functional>
#include <string>

#include "core/result.h"
#include "plan/plan.h"
#include "sim/timeline_options.h"
#include "sweep/evaluator.h"

namespace dtplan::sweep {

// Plans the model on one candidate; called concurrently (must be safe to).
using PlanFunction = std::function<core::Result<plan::Plan>(const MeshCandidate&)>;

// Told each plan as soon as it exists (`dtplan sweep --plans` writes it to a file); called
// concurrently for different candidates (must be safe to). An error fails that candidate (its
// row carries the message; sweep.h).
using PlanSink = std::function<core::Status(const MeshCandidate&, const plan::Plan&)>;

enum class StepModel : std::uint8_t { kSimulate, kPlanTotal };

struct PlanEvaluatorOptions {
  StepModel step = StepModel::kSimulate;
  sim::TimelineOptions timeline{};      // for kSimulate (hardware: the profile in use)
  std::string planner{"exact solver"};  // names the plan function in description()
  double relative_gap = 0;              // the exact solver's (solve::SolveOptions), for notes
  PlanSink on_plan{};                   // none: plans are dropped once evaluated
};

// The sweep figures of one plan under `options` (see above).
// @post check_evaluation(result) holds; result.optimal == plan.solver.optimal.
core::Result<MeshEvaluation> evaluate_plan(const plan::Plan& plan,
                                           const PlanEvaluatorOptions& options);

class PlanEvaluator final : public MeshEvaluator {
 public:
  PlanEvaluator(PlanFunction plan, PlanEvaluatorOptions options)
      : plan_(std::move(plan)), options_(std::move(options)) {}

  [[nodiscard]] core::Result<MeshEvaluation> evaluate(
      const MeshCandidate& candidate) const override;
  // "exact solver + step simulator" or "exact solver + plan total (no overlap)".
  [[nodiscard]] std::string description() const override;

 private:
  PlanFunction plan_;
  PlanEvaluatorOptions options_;
};

}  // namespace dtplan::sweep
