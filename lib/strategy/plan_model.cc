#include "strategy/plan_model.h"

#include <chrono>

#include "strategy/constraints.h"
#include "strategy/fuse_allgathers.h"
#include "strategy/lower_plan.h"
#include "strategy/plan_problem.h"

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
  // Only the exact solver's answer does not depend on labels its pins forbid (the greedy
  // solver's trivial bound and CBC's ties would).
  const LabelScope labels =
      options.solver == solve::SolverKind::kExact ? LabelScope::kPinned : LabelScope::kAll;
  DTPLAN_TRY(PlanProblem pp, export_plan_problem(graph, mesh, profile, options, labels));
  const GraphStrategies& strategies = pp.strategies;
  const SelectionProblem& sp = pp.selection;
  const PinMatch& pinned = pp.pinned;
  EdgeCoster& coster = *pp.coster;
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
  DTPLAN_TRY(out.plan, lower_plan({graph, strategies, choice, sp.memory, options.memory_limit_bytes,
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
  out.stats.enumerate_s = pp.enumerate_s;
  out.stats.export_s = seconds(t0, t2) - pp.enumerate_s;
  out.stats.solve_s = seconds(t2, t3);
  out.stats.lower_s = seconds(t3, t4);
  out.stats.total_s = seconds(t0, t4);
  out.stats.problem = solve::problem_size(sp.problem);
  out.stats.distinct_ops = static_cast<std::int64_t>(strategies.distinct_count());
  out.stats.pairs_priced = static_cast<std::int64_t>(coster.pairs_priced());
  out.stats.matrices_built = static_cast<std::int64_t>(coster.matrices_built());
  out.stats.labels_pruned = sp.labels_pruned;
  return out;
}

core::Result<plan::Plan> plan_model(const graph::Graph& graph, const mesh::DeviceMesh& mesh,
                                    const cost::HardwareProfile& profile,
                                    const ModelPlanOptions& options) {
  DTPLAN_TRY(ModelPlan out, plan_graph(graph, mesh, profile, options));
  return std::move(out.plan);
}

}  // namespace dtplan::strategy
