// plan_choice() and op_alternatives() on the tiny LLaMA3 on a 1-D mesh: the plan's choices map
// back onto the rebuilt problem at the plan's objective; the chosen strategy has delta 0; no
// feasible alternative of an optimal plan is cheaper; the order and the errors.

#include "strategy/op_alternatives.h"

#include <doctest/doctest.h>

#include <cmath>

#include "support/selection_testing.h"
#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {

namespace {

struct Fixture {
  const graph::Graph& graph = tiny_llama3_graph(1);
  redist::MeshContext ctx = context({4}, {"dp"});
  ModelPlanOptions options{};
  PlanProblem problem() const {
    auto pp = export_plan_problem(graph, ctx.mesh(), h100(), options);
    REQUIRE_MESSAGE(pp.ok(), (pp.ok() ? "" : pp.error().message));
    return std::move(pp).value();
  }
};

}  // namespace

TEST_CASE("op_alternatives: the chosen strategy has delta 0, no switch beats an optimal plan") {
  Fixture f;
  const ModelPlan mp = plan_or_fail(f.graph, f.ctx, f.options);
  REQUIRE(mp.plan.solver.optimal);
  const PlanProblem pp = f.problem();
  auto choice = plan_choice(f.graph, pp.strategies, mp.plan);
  REQUIRE_MESSAGE(choice.ok(), (choice.ok() ? "" : choice.error().message));
  std::int64_t checked = 0;
  for (const char* name : {"layers.0.attention.wq.einsum", "layers.0.feed_forward.w2.einsum",
                           "tok_embeddings.weight", "output.einsum"}) {
    INFO(name);
    const std::optional<graph::NodeId> node = f.graph.find(name);
    REQUIRE(node.has_value());
    auto a = op_alternatives(pp, *choice, *node);
    REQUIRE_MESSAGE(a.ok(), (a.ok() ? "" : a.error().message));
    CHECK(a->chosen_infeasible.empty());
    CHECK(a->objective_us == doctest::Approx(mp.plan.solver.objective_us).epsilon(1e-9));
    CHECK(a->alternatives.size() == pp.strategies.of(*node).size());
    bool saw_chosen = false;
    for (std::size_t i = 0; i < a->alternatives.size(); ++i) {
      const Alternative& alt = a->alternatives[i];
      if (alt.strategy == a->chosen) {
        saw_chosen = true;
        CHECK(alt.delta_us == 0);
        CHECK(alt.infeasible.empty());
      }
      if (alt.infeasible.empty()) CHECK(alt.delta_us >= -1e-6);
      if (i > 0) {
        const Alternative& prev = a->alternatives[i - 1];
        auto ps = [](double d) { return std::isfinite(d) ? std::round(d * 1e6) : INFINITY; };
        const double dp = ps(prev.delta_us);
        const double da = ps(alt.delta_us);
        CHECK((dp < da || (dp == da && prev.strategy < alt.strategy)));
      }
      ++checked;
    }
    CHECK(saw_chosen);
  }
  CHECK(checked > 4);
}

TEST_CASE("op_alternatives: the output node and a plan the model lacks are errors") {
  Fixture f;
  const ModelPlan mp = plan_or_fail(f.graph, f.ctx, f.options);
  const PlanProblem pp = f.problem();
  auto choice = plan_choice(f.graph, pp.strategies, mp.plan);
  REQUIRE(choice.ok());
  std::int32_t outside = 0;  // the output node: no choice of the problem
  while (pp.selection.problem_node[static_cast<std::size_t>(outside)] >= 0) ++outside;
  CHECK(op_alternatives(pp, *choice, graph::NodeId{outside}).error().message ==
        "the op is not a choice of the plan's problem");
  plan::Plan renamed = mp.plan;
  renamed.ops[0].name = "nowhere";
  CHECK(plan_choice(f.graph, pp.strategies, renamed).error().message ==
        "op 'nowhere': not in the model rebuilt for the plan");
  plan::Plan restrategied = mp.plan;
  restrategied.ops[1].strategy = "bogus";
  CHECK(plan_choice(f.graph, pp.strategies, restrategied)
            .error()
            .message.find("the plan's strategy bogus is not among the op's") != std::string::npos);
}

}  // namespace dtplan::strategy::testing
