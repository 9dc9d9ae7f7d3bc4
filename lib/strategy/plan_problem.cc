#include "strategy/plan_problem.h"

#include <chrono>

#include "redist/mesh_context.h"
#include "redist/planner.h"
#include "strategy/constraints.h"

namespace dtplan::strategy {

core::Result<PlanProblem> export_plan_problem(const graph::Graph& graph,
                                              const mesh::DeviceMesh& mesh,
                                              const cost::HardwareProfile& profile,
                                              const ModelPlanOptions& options, LabelScope labels) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::int64_t gpus = options.gpus_per_node.value_or(profile.node.gpus_per_node);
  auto make_planner = [&]() -> core::Result<std::unique_ptr<redist::Planner>> {
    DTPLAN_TRY(redist::MeshContext ctx, redist::MeshContext::make(mesh, gpus, profile.name));
    return std::make_unique<redist::Planner>(std::move(ctx),
                                             redist::make_cost_model(options.cost_model, profile));
  };
  DTPLAN_TRY(std::unique_ptr<redist::Planner> planner, make_planner());
  const std::vector<std::int64_t> sizes = mesh.shape();
  EnumerateOptions enumerate = options.enumerate;
  enumerate.execution = options.training.execution;  // compiled blocks price fused regions
  PlanProblem out;
  DTPLAN_TRY(out.strategies, enumerate_graph(graph, sizes, profile, enumerate));
  out.enumerate_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Edge pricing uses the solver's threads too: one more planner per thread.
  std::vector<std::unique_ptr<redist::Planner>> helpers;
  for (int t = 1; t < options.solve.threads; ++t) {
    DTPLAN_TRY(std::unique_ptr<redist::Planner> helper, make_planner());
    helpers.push_back(std::move(helper));
  }
  out.coster = std::make_unique<EdgeCoster>(std::move(planner), std::move(helpers));
  Constraints constraints = default_constraints(graph, out.strategies, sizes.size());
  constraints.memory_limit_bytes = options.memory_limit_bytes;
  if (!options.pins.empty()) {
    DTPLAN_TRY(out.pinned, apply_pin_rules(graph, out.strategies, options.pins, constraints));
  }
  DTPLAN_TRY(
      out.selection,
      export_problem(graph, out.strategies, constraints, *out.coster,
                     ExportOptions{options.followers, options.training, labels,
                                   options.pins.empty() ? LabelPruning::kNone : options.pruning}));
  if (!options.pins.empty()) {
    DTPLAN_CHECK(check_pin_conflicts(out.selection.problem, out.selection.graph_node, out.pinned,
                                     options.pins));
  }
  return out;
}

}  // namespace dtplan::strategy
