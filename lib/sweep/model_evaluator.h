#pragma once
// make_model_evaluator(): the evaluator `dtplan sweep` uses, wiring the planning pipeline into
// the sweep. For each mesh candidate it builds the mesh a user would (mesh::build_mesh of
// mesh_config(): root mesh plus its flattened meshes), plans the model on it with the exact
// solver (strategy::plan_model, what `dtplan plan --solver exact` runs) under the memory limit,
// and simulates the plan's step (PlanEvaluator, StepModel::kSimulate). A memory limit no plan
// meets is kUnsupported from the planner, so the mesh becomes an infeasible row whose note
// gives the minimum.
//
// Dependency note: lib/sweep sits above strategy, plan and sim (it calls all three); none of
// them may include sweep/.
//
//   auto model = std::make_shared<const graph::Model>(graph::load_model(path).value());
//   auto ev = make_model_evaluator(model, profile, {.gpus_per_node = 8});
//   MeshEvaluation e = ev->evaluate({{8, 8}, {"dp", "tp"}, {{{"dp", "tp"}, ""}}}).value();

#include <cstdint>
#include <memory>

#include "cost/hardware.h"
#include "graph/model_io.h"
#include "sweep/plan_evaluator.h"

namespace dtplan::sweep {

struct ModelEvaluatorOptions {
  std::int64_t gpus_per_node = 8;
  std::int64_t memory_limit_bytes = 0;  // 0: the planner's default (AutoParallel's budget)
  StepModel step = StepModel::kSimulate;
  // The exact solver's limit per mesh; a mesh that reaches it keeps the best plan found (optimal
  // false, noted), and that plan can depend on machine load: only meshes solved to optimality
  // are deterministic.
  double time_limit_s = 60;
  // The exact solver may stop once a plan is within this fraction of the optimum
  // (solve::SolveOptions::relative_gap): the gap depends on the work done, never on the clock.
  double relative_gap = 0;
  bool operator==(const ModelEvaluatorOptions&) const = default;
};

// @pre model outlives nothing: it is shared with the evaluator, which may be used from several
//   threads at once (planning reads the graph only).
// `on_plan` is told every plan made (PlanEvaluatorOptions::on_plan).
std::unique_ptr<MeshEvaluator> make_model_evaluator(std::shared_ptr<const graph::Model> model,
                                                    const cost::HardwareProfile& profile,
                                                    const ModelEvaluatorOptions& options,
                                                    PlanSink on_plan = {});

// The model's layer count: the builder configuration's n_layers, else the number of distinct
// layer ids of its graph's nodes.
std::int64_t model_layers(const graph::Model& model);

}  // namespace dtplan::sweep
