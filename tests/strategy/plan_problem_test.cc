// export_plan_problem() with LabelScope::kPinned against kAll on the tiny LLaMA3 pinned to
// torchtitan's plan: fewer labels, only pinned strategies on pinned nodes, and the exact solver
// chooses the same strategies at the same objective (with and without a memory limit), also
// after the bound of bound_pruning.h dropped strategies.

#include "strategy/plan_problem.h"

#include <doctest/doctest.h>

#include "graph/test_models.h"
#include "solve/solver.h"
#include "strategy/torchtitan_pins.h"
#include "support/selection_testing.h"
#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {

namespace {

PlanProblem exported(const graph::Graph& graph, const redist::MeshContext& ctx,
                     const ModelPlanOptions& options, LabelScope labels) {
  auto pp = export_plan_problem(graph, ctx.mesh(), h100(), options, labels);
  REQUIRE_MESSAGE(pp.ok(), (pp.ok() ? "" : pp.error().message));
  return std::move(pp).value();
}

std::vector<std::int32_t> solved_choice(const PlanProblem& pp, double& objective_us) {
  auto sol = solve::make_exact_solver()->solve(pp.selection.problem, default_solve_options());
  REQUIRE_MESSAGE(sol.ok(), (sol.ok() ? "" : sol.error().message));
  objective_us = sol->objective_us;
  auto choice = map_solution(pp.selection, sol->labels);
  REQUIRE(choice.ok());
  CHECK(labels_of(pp.selection, *choice) == sol->labels);
  return *choice;
}

}  // namespace

TEST_CASE("export_plan_problem: pinned labels only, the same exact plan") {
  const graph::Graph& g = tiny_llama3_graph(2);
  const auto ctx = context({2, 2}, {"dp_shard", "tp"}, {{"dp_shard", "tp"}});
  auto pins = torchtitan_pins({"dp_shard", "tp"}, std::vector<std::int64_t>{2, 2},
                              graph::test_models::tiny_llama3(2));
  REQUIRE_MESSAGE(pins.ok(), (pins.ok() ? "" : pins.error().message));
  for (const std::optional<std::int64_t> limit :
       {std::optional<std::int64_t>{}, std::optional<std::int64_t>{std::int64_t{1} << 40}}) {
    INFO("memory limit " << limit.value_or(-1));
    ModelPlanOptions o;
    o.pins = *pins;
    o.enumerate.strided_params = uses_strided_shard(*pins);
    o.memory_limit_bytes = limit;
    const PlanProblem all = exported(g, ctx, o, LabelScope::kAll);
    const PlanProblem pinned = exported(g, ctx, o, LabelScope::kPinned);
    const auto all_size = solve::problem_size(all.selection.problem);
    const auto pinned_size = solve::problem_size(pinned.selection.problem);
    CHECK(pinned_size.nodes == all_size.nodes);
    CHECK(pinned_size.edges == all_size.edges);
    CHECK(pinned_size.labels < all_size.labels);
    std::size_t relabelled = 0;
    for (const auto& list : pinned.selection.label_strategy) relabelled += list.empty() ? 0 : 1;
    CHECK(relabelled > 0);
    CHECK(pinned.selection.labels_pruned > 0);  // the bound (bound_pruning.h) drops some
    CHECK(all.selection.labels_pruned == 0);
    CHECK(all.selection.label_strategy.size() == all.selection.graph_node.size());
    for (const auto& list : all.selection.label_strategy) CHECK(list.empty());
    double all_us = 0;
    double pinned_us = 0;
    CHECK(solved_choice(all, all_us) == solved_choice(pinned, pinned_us));
    CHECK(all_us == pinned_us);
    CHECK(all.selection.memory_minimum_bytes == pinned.selection.memory_minimum_bytes);
  }
}

}  // namespace dtplan::strategy::testing
