#include "sweep/model_evaluator.h"

#include <set>

#include "mesh/mesh_io.h"
#include "strategy/plan_model.h"
#include "strategy/torchtitan_pins.h"
#include "sweep/sweep.h"

namespace dtplan::sweep {

namespace {

// Adds torchtitan's pins for the candidate's roles to `options`; kUnsupported when they do not
// fit the mesh or the model (see the header).
core::Status add_torchtitan_pins(const MeshCandidate& c, const graph::Model& model,
                                 strategy::ModelPlanOptions& options) {
  if (!model.llama3) {
    return core::Error::unsupported(
        "--parallelize torchtitan: needs a llama3 builder model (torchtitan's "
        "parallelize_llama)");
  }
  auto pins = strategy::torchtitan_pins(c.names, c.shape, *model.llama3);
  if (!pins.ok()) return core::Error::unsupported(pins.error().message);
  options.enumerate.strided_params = strategy::uses_strided_shard(*pins);
  options.enumerate.context_parallel_dims = strategy::context_parallel_dims(c.names);
  options.pins = std::move(*pins);
  return core::Status{};
}

}  // namespace

std::unique_ptr<MeshEvaluator> make_model_evaluator(std::shared_ptr<ModelCache> models,
                                                    const cost::HardwareProfile& profile,
                                                    const ModelEvaluatorOptions& options,
                                                    PlanSink on_plan) {
  auto shared_profile = std::make_shared<const cost::HardwareProfile>(profile);
  strategy::ModelPlanOptions plan_options;
  plan_options.solver = solve::SolverKind::kExact;
  plan_options.gpus_per_node = options.gpus_per_node;
  plan_options.solve.time_limit_s = options.time_limit_s;
  plan_options.solve.relative_gap = options.relative_gap;
  if (options.memory_limit_bytes > 0) plan_options.memory_limit_bytes = options.memory_limit_bytes;
  PlanFunction plan = [models = std::move(models), shared_profile,
                       plan_options](const MeshCandidate& c) -> core::Result<plan::Plan> {
    auto model = models->get(c);
    if (!model.ok()) return core::Error::unsupported(model.error().message);
    strategy::ModelPlanOptions o = plan_options;
    o.training = (*model)->training;
    if (c.parallelize == Parallelize::kTorchtitan) {
      DTPLAN_CHECK(add_torchtitan_pins(c, **model, o));
    }
    DTPLAN_TRY(mesh::LoadedMesh loaded,
               mesh::build_mesh(mesh_config(c, shared_profile->name), candidate_label(c)));
    return strategy::plan_model((*model)->graph, loaded.root, *shared_profile, o);
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
