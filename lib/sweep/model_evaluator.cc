#include "sweep/model_evaluator.h"

#include <set>

#include "mesh/mesh_io.h"
#include "strategy/plan_model.h"
#include "sweep/sweep.h"

namespace dtplan::sweep {

std::unique_ptr<MeshEvaluator> make_model_evaluator(std::shared_ptr<const graph::Model> model,
                                                    const cost::HardwareProfile& profile,
                                                    const ModelEvaluatorOptions& options,
                                                    PlanSink on_plan) {
  auto shared_profile = std::make_shared<const cost::HardwareProfile>(profile);
  strategy::ModelPlanOptions plan_options;
  plan_options.solver = solve::SolverKind::kExact;
  plan_options.gpus_per_node = options.gpus_per_node;
  plan_options.solve.time_limit_s = options.time_limit_s;
  plan_options.solve.relative_gap = options.relative_gap;
  plan_options.training = model->training;
  if (options.memory_limit_bytes > 0) plan_options.memory_limit_bytes = options.memory_limit_bytes;
  PlanFunction plan = [model = std::move(model), shared_profile,
                       plan_options](const MeshCandidate& c) -> core::Result<plan::Plan> {
    DTPLAN_TRY(mesh::LoadedMesh loaded,
               mesh::build_mesh(mesh_config(c, shared_profile->name), candidate_label(c)));
    return strategy::plan_model(model->graph, loaded.root, *shared_profile, plan_options);
  };
  PlanEvaluatorOptions eo;
  eo.step = options.step;
  eo.timeline.hardware = profile;
  eo.planner = "exact solver";
  eo.relative_gap = options.relative_gap;
  eo.on_plan = std::move(on_plan);
  return std::make_unique<PlanEvaluator>(std::move(plan), std::move(eo));
}

std::int64_t model_layers(const graph::Model& model) {
  if (model.llama3) return model.llama3->n_layers;
  std::set<std::int32_t> layers;
  for (const graph::Node& n : model.graph.nodes()) {
    if (n.layer >= 0) layers.insert(n.layer);
  }
  return static_cast<std::int64_t>(layers.size());
}

}  // namespace dtplan::sweep
