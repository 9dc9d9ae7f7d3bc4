#include "strategy/plan_model.h"

#include <chrono>

#include "redist/mesh_context.h"
#include "redist/planner.h"
#include "strategy/constraints.h"
#include "strategy/edge_cost.h"
#include "strategy/fuse_allgathers.h"
#include "strategy/graph_strategies.h"
#include "strategy/lower_plan.h"

namespace dtplan::strategy {

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

solve::SolveOptions default_solve_options() {
  solve::SolveOptions o;
  o.max_table_entries = std::int64_t{1} << 25;
  return o;
}

core::Result<ModelPlan> plan_graph(const graph::Graph& graph, const mesh::DeviceMesh& mesh,
                                   const cost::HardwareProfile& profile,
                                   const ModelPlanOptions& options) {
  const auto t0 = Clock::now();
  DTPLAN_TRY(auto solver, solve::make_solver(options.solver));
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
  DTPLAN_TRY(GraphStrategies strategies, enumerate_graph(graph, sizes, profile, enumerate));
  const auto t1 = Clock::now();

  // Edge pricing uses the solver's threads too: one more planner per thread.
  std::vector<std::unique_ptr<redist::Planner>> helpers;
  for (int t = 1; t < options.solve.threads; ++t) {
    DTPLAN_TRY(std::unique_ptr<redist::Planner> helper, make_planner());
    helpers.push_back(std::move(helper));
  }
  EdgeCoster coster(std::move(planner), std::move(helpers));
  Constraints constraints = default_constraints(graph, strategies, sizes.size());
  constraints.memory_limit_bytes = options.memory_limit_bytes;
  PinMatch pinned;
  if (!options.pins.empty()) {
    DTPLAN_TRY(pinned, apply_pin_rules(graph, strategies, options.pins, constraints));
  }
  DTPLAN_TRY(SelectionProblem sp, export_problem(graph, strategies, constraints, coster,
                                                 ExportOptions{options.followers,
                                                               options.training}));
  if (!options.pins.empty()) {
    DTPLAN_CHECK(check_pin_conflicts(sp.problem, sp.graph_node, pinned, options.pins));
  }
  const auto t2 = Clock::now();

  auto solved = solver->solve(sp.problem, options.solve);
  if (!solved.ok() && !options.pins.empty() &&
      solved.error().kind == core::ErrorKind::kUnsupported) {
    return pin_infeasible(solved.error(), pinned, options.pins);
  }
  DTPLAN_TRY(solve::Solution solution, std::move(solved));
  const auto t3 = Clock::now();

  DTPLAN_TRY(std::vector<std::int32_t> choice, map_solution(sp, solution.labels));
  ModelPlan out;
  DTPLAN_TRY(
      out.plan,
      lower_plan({graph, strategies, choice, sp.memory, options.memory_limit_bytes,
                  options.training},
                 coster));
  if (options.fuse_allgathers) {
    DTPLAN_TRY(FuseResult fused, fuse_chained_allgathers(out.plan, graph, coster));
    out.stats.fused_allgathers = fused.fused;
  }
  out.stats.pin_matches = pinned.matched;
  const auto t4 = Clock::now();

  out.plan.solver = {std::string(solver->name()),
                     solution.time_s,
                     solution.objective_us,
                     solution.lower_bound_us,
                     solution.optimal,
                     solution.optimal ? "" : std::string(solve::name(solution.stats.stop_reason))};
  out.stats.enumerate_s = seconds(t0, t1);
  out.stats.export_s = seconds(t1, t2);
  out.stats.solve_s = seconds(t2, t3);
  out.stats.lower_s = seconds(t3, t4);
  out.stats.total_s = seconds(t0, t4);
  out.stats.problem = solve::problem_size(sp.problem);
  out.stats.distinct_ops = static_cast<std::int64_t>(strategies.distinct_count());
  out.stats.pairs_priced = static_cast<std::int64_t>(coster.pairs_priced());
  out.stats.matrices_built = static_cast<std::int64_t>(coster.matrices_built());
  return out;
}

core::Result<plan::Plan> plan_model(const graph::Graph& graph, const mesh::DeviceMesh& mesh,
                                    const cost::HardwareProfile& profile,
                                    const ModelPlanOptions& options) {
  DTPLAN_TRY(ModelPlan out, plan_graph(graph, mesh, profile, options));
  return std::move(out.plan);
}

}  // namespace dtplan::strategy
