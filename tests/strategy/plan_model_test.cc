#include "strategy/plan_model.h"

#include <doctest/doctest.h>

#include <map>

#include "plan/plan_summary.h"
#include "solve/ilp_solver.h"
#include "support/selection_testing.h"
#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {

namespace {

ModelPlanOptions with_solver(const std::string& name) {
  ModelPlanOptions o;
  o.solver = solve::parse_solver_kind(name).value();
  return o;
}

const plan::PlanOp& op_named(const plan::Plan& p, const std::string& name) {
  for (const plan::PlanOp& op : p.ops) {
    if (op.name == name) return op;
  }
  FAIL("no op " << name);
  return p.ops.front();
}

}  // namespace

TEST_CASE("plan_model: the tiny LLaMA3 plans with every solver; exact == CBC <= greedy") {
  const graph::Graph& g = tiny_llama3_graph(2);
  const auto ctx = context({4}, {"dp"});
  std::map<std::string, ModelPlan> plans;
  for (const std::string& name : solve::solver_names()) {
    if (name == "ilp" && !solve::ilp_available()) continue;
    ModelPlan mp = plan_or_fail(g, ctx, with_solver(name));
    const plan::Plan& p = mp.plan;
    INFO(name);
    CHECK(plan::check_plan(p).ok());
    CHECK(p.solver.name == name);
    CHECK(p.ops.size() + 1 == g.size());  // the output node is not an op
    CHECK(p.layers == 2);
    CHECK(p.cost.total_us == doctest::Approx(p.solver.objective_us).epsilon(1e-12));
    CHECK(p.cost == plan::cost_summary(p));
    CHECK(p.solver.lower_bound_us <= p.solver.objective_us + 1e-9);
    // Constraints: tokens pinned to S(0); every gradient has its parameter's placements.
    CHECK(op_named(p, "tokens").placements == pl("S(0)"));
    CHECK(op_named(p, "logits.tangent").placements ==
          op_named(p, "output.einsum.alias").placements);
    for (const graph::Node& n : g.nodes()) {
      if (n.role != core::OpRole::kParam) continue;
      CHECK(op_named(p, n.name).placements == op_named(p, g.node(n.pair).name).placements);
    }
    // The default budget: every parameter at its smallest shard (4-way here).
    std::int64_t min_params = 0;
    for (const graph::Node& n : g.nodes()) {
      if (n.role == core::OpRole::kParam) {
        min_params += n.outputs[0].shape.empty() ? 4 : 4 * [&] {
          std::int64_t numel = 1;
          for (std::int64_t s : n.outputs[0].shape) numel *= s;
          return (numel + 3) / 4;
        }();
      }
    }
    CHECK(p.memory.parameter_bytes <= min_params);
    CHECK(p.memory.optimizer_bytes == 2 * p.memory.gradient_bytes);
    CHECK(p.memory.peak_bytes_per_rank == p.memory.parameter_bytes + p.memory.gradient_bytes +
                                              p.memory.optimizer_bytes + p.memory.activation_bytes);
    plans.emplace(name, std::move(mp));
  }
  const plan::Plan& exact = plans.at("exact").plan;
  const plan::Plan& greedy = plans.at("greedy").plan;
  CHECK(exact.solver.optimal);
  CHECK(exact.solver.objective_us <= greedy.solver.objective_us);
  if (plans.contains("ilp")) {
    CHECK(plans.at("ilp").plan.solver.objective_us ==
          doctest::Approx(exact.solver.objective_us).epsilon(1e-9));
  }
}

TEST_CASE("plan_model: a per-rank memory limit is honoured, and one below the minimum fails") {
  const graph::Graph& g = tiny_llama3_graph(1);
  const auto ctx = context({4}, {"dp"});
  // The minimum: every tensor at its smallest shard (export_problem computes it).
  const Enumerated e = enumerate(g, {4});
  auto coster = make_coster(ctx);
  Constraints c = default_constraints(g, e.strategies, 1);
  c.memory_limit_bytes = std::int64_t{1} << 40;
  const std::int64_t minimum =
      export_problem(g, e.strategies, c, *coster).value().memory_minimum_bytes;
  // A generous limit leaves the solver free; squeeze halfway to the minimum.
  ModelPlanOptions loose = with_solver("exact");
  loose.memory_limit_bytes = c.memory_limit_bytes;
  const plan::Plan free_plan = plan_or_fail(g, ctx, loose).plan;
  REQUIRE(free_plan.memory.peak_bytes_per_rank > minimum);
  ModelPlanOptions tight = loose;
  tight.memory_limit_bytes = (minimum + free_plan.memory.peak_bytes_per_rank) / 2;
  for (const std::string& name : {std::string("exact"), std::string("greedy")}) {
    INFO(name);
    ModelPlanOptions o = tight;
    o.solver = solve::parse_solver_kind(name).value();
    const plan::Plan p = plan_or_fail(g, ctx, o).plan;
    CHECK(p.memory.peak_bytes_per_rank <= *tight.memory_limit_bytes);
    CHECK(p.memory.limit_bytes == *tight.memory_limit_bytes);
    CHECK(p.solver.objective_us >= free_plan.solver.objective_us - 1e-9);
    CHECK(plan::check_plan(p).ok());
  }
  ModelPlanOptions below = loose;
  below.memory_limit_bytes = minimum - 1;
  auto infeasible = plan_graph(g, ctx.mesh(), h100(), below);
  REQUIRE_FALSE(infeasible.ok());
  CHECK(infeasible.error().kind == core::ErrorKind::kUnsupported);
  CHECK(infeasible.error().message.find("below the minimum feasible " + std::to_string(minimum) +
                                        " B") != std::string::npos);
}

TEST_CASE("plan_model: an unknown solver fails where its name is parsed, naming it") {
  // ModelPlanOptions holds a solve::SolverKind: a bad name never reaches plan_graph.
  auto bad = solve::parse_solver_kind("simplex");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().kind == core::ErrorKind::kBadInput);
  CHECK(bad.error().message.find("simplex") != std::string::npos);
}

TEST_CASE("plan_model: the dtensor cost model and tied followers also plan") {
  const graph::Graph& g = tiny_llama3_graph(1);
  const auto ctx = context({2}, {"dp"});
  ModelPlanOptions o = with_solver("exact");
  o.cost_model = redist::CostModelKind::kDTensor;
  const plan::Plan dt = plan_or_fail(g, ctx, o).plan;
  CHECK(dt.solver.optimal);
  CHECK(plan::check_plan(dt).ok());
  for (const plan::PlanRedistribution& r : dt.redistributions) CHECK(r.plan.model == "dtensor");
  ModelPlanOptions free_o = with_solver("exact");
  ModelPlanOptions tie_o = free_o;
  tie_o.followers = FollowerMode::kTie;
  const plan::Plan free_plan = plan_or_fail(g, ctx, free_o).plan;
  const plan::Plan tied = plan_or_fail(g, ctx, tie_o).plan;
  // Ties only restrict the choice: the free optimum is at least as good.
  CHECK(free_plan.solver.objective_us <= tied.solver.objective_us + 1e-9);
}

}  // namespace dtplan::strategy::testing
