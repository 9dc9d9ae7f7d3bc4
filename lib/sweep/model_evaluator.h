#pragma once
// make_model_evaluator(): the evaluator `dtplan sweep` uses, wiring the planning pipeline into
// the sweep. For each candidate it takes the model of the candidate's training choice (a
// ModelCache), builds the mesh a user would (mesh::build_mesh of mesh_config(): root mesh plus
// its flattened meshes), plans the model on it with the exact solver (strategy::plan_model,
// what `dtplan plan --solver exact` runs) under the memory limit, and simulates the plan's step
// (PlanEvaluator, StepModel::kSimulate).
//
// Parallelize::kTorchtitan pins torchtitan's parallelize_llama for the candidate's roles
// (strategy/torchtitan_pins.h, what `dtplan plan --parallelize torchtitan` pins) and lets the
// solver choose the rest. It needs a llama3 builder model, and a data-parallel degree
// (dp_replicate x dp_shard) that divides the microbatch (torchtitan splits every microbatch
// evenly over the data-parallel ranks).
//
// A candidate that cannot be planned is kUnsupported, which the sweep turns into an infeasible
// row whose note gives the reason: a memory limit no plan meets (the planner's message gives the
// minimum), a training choice the model rejects (grad_accum not dividing the batch), torchtitan's
// rules not fitting the mesh (tp not dividing the heads, the sequence not dividing by 2 x cp x tp,
// the data-parallel degree not dividing the microbatch).
//
// Dependency note: lib/sweep sits above strategy, plan and sim (it calls all three); none of
// them may include sweep/.
//
//   auto models = std::make_shared<ModelCache>("configs/models/llama3-8b.json", overrides);
//   auto ev = make_model_evaluator(models, profile, {.gpus_per_node = 8});
//   MeshEvaluation e = ev->evaluate(candidate).value();

#include <cstdint>
#include <memory>

#include "cost/hardware.h"
#include "graph/model_io.h"
#include "sweep/model_cache.h"
#include "sweep/plan_evaluator.h"

namespace dtplan::sweep {

struct ModelEvaluatorOptions {
  std::int64_t gpus_per_node = 8;
  std::int64_t memory_limit_bytes = 0;  // 0: the planner's default (AutoParallel's budget)
  StepModel step = StepModel::kSimulate;
  // The exact solver's limit per candidate; one that reaches it keeps the best plan found
  // (optimal false, noted), and that plan can depend on machine load: only candidates solved to
  // optimality are deterministic.
  double time_limit_s = 60;
  // The exact solver may stop once a plan is within this fraction of the optimum
  // (solve::SolveOptions::relative_gap): the gap depends on the work done, never on the clock.
  double relative_gap = 0;
  bool operator==(const ModelEvaluatorOptions&) const = default;
};

// `models` is shared with the evaluator, which may be used from several threads at once.
// `on_plan` is told every plan made (PlanEvaluatorOptions::on_plan).
std::unique_ptr<MeshEvaluator> make_model_evaluator(std::shared_ptr<ModelCache> models,
                                                    const cost::HardwareProfile& profile,
                                                    const ModelEvaluatorOptions& options,
                                                    PlanSink on_plan = {});

// The model's layer count: the builder configuration's n_layers, else the number of distinct
// layer ids of its graph's nodes.
std::int64_t model_layers(const graph::Model& model);

}  // namespace dtplan::sweep
