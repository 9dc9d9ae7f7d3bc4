#include "strategy/pin_rules.h"

#include <doctest/doctest.h>

#include "support/selection_testing.h"
#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {

namespace {

PinRule placements_rule(std::string name, std::string pattern, const std::string& placements) {
  return {std::move(name), std::move(pattern), PinKind::kPlacements, pl(placements), 0};
}

PinSet pin_set(std::vector<PinRule> rules) { return {"--parallelize p.json", std::move(rules)}; }

const plan::PlanOp& op_named(const plan::Plan& p, const std::string& name) {
  for (const plan::PlanOp& op : p.ops) {
    if (op.name == name) return op;
  }
  FAIL("no op " << name);
  return p.ops.front();
}

// The tiny model's strategies on a 2x2 mesh, with its default constraints.
struct Tiny {
  const graph::Graph& graph = tiny_llama3_graph(2);
  GraphStrategies strategies =
      enumerate_graph(graph, std::vector<std::int64_t>{2, 2}, h100()).value();
  Constraints constraints = default_constraints(graph, strategies, 2);
};

}  // namespace

TEST_CASE("apply_pin_rules: one pin per matched node, replacing the default pin there") {
  Tiny t;
  const graph::NodeId tokens = *t.graph.find("tokens");
  const PinSet pins =
      pin_set({placements_rule("wq", "layers\\.\\d+\\.attention\\.wq\\.weight", "S(0),R"),
               placements_rule("tok", "tokens", "R,S(0)")});
  auto m = apply_pin_rules(t.graph, t.strategies, pins, t.constraints);
  REQUIRE_MESSAGE(m.ok(), m.error().message);
  CHECK(m->matched == std::vector<std::int64_t>{2, 1});  // two layers' wq, one tokens
  CHECK(m->rule_of_node[static_cast<std::size_t>(graph::index_of(tokens))] == 1);
  std::int64_t wq_pins = 0;
  for (const NodePin& p : t.constraints.pins) {
    if (p.node == tokens) CHECK(p.placements == pl("R,S(0)"));  // the default was S(0),R
    if (t.graph.node(p.node).name.ends_with("wq.weight")) {
      CHECK(p.placements == pl("S(0),R"));
      ++wq_pins;
    }
  }
  CHECK(wq_pins == 2);
  for (std::size_t k = 1; k < t.constraints.pins.size(); ++k) {
    CHECK(graph::index_of(t.constraints.pins[k - 1].node) <
          graph::index_of(t.constraints.pins[k].node));
  }
}

TEST_CASE("apply_pin_rules: the literal tail skips no match (alternation, escapes, groups)") {
  Tiny t;
  const std::vector<std::pair<std::string, std::int64_t>> cases = {
      {"tokens", 1},                                        // all literal
      {"tok_embeddings\\.weight|output\\.weight", 2},       // '|' outside a group
      {"layers\\.\\d+\\.attention\\.(wq|wk)\\.weight", 4},  // tail after a group
      {"layers\\.1\\.attention\\.wq\\.weigh[t]", 1},        // class at the end
      {"(layers\\.\\d+\\.attention_norm|norm)\\.weight", 3},
      {"output\\.weigh\\w", 1},  // an escaped class at the end is no literal
  };
  for (const auto& [pattern, count] : cases) {
    INFO(pattern);
    Constraints c = t.constraints;
    auto m =
        apply_pin_rules(t.graph, t.strategies, pin_set({placements_rule("r", pattern, "R,R")}), c);
    REQUIRE_MESSAGE(m.ok(), m.error().message);
    CHECK(m->matched == std::vector<std::int64_t>{count});
  }
}

TEST_CASE("apply_pin_rules: errors name the rule; kinds map to exit 2 and 3") {
  Tiny t;
  auto error_of = [&](std::vector<PinRule> rules) {
    auto m = apply_pin_rules(t.graph, t.strategies, pin_set(std::move(rules)), t.constraints);
    REQUIRE_FALSE(m.ok());
    return m.error();
  };
  // A search regex would match wq.weight_cast too; a whole-name match matches nothing here.
  core::Error e = error_of({placements_rule("wq", "wq", "S(0),R")});
  CHECK(e.kind == core::ErrorKind::kBadInput);
  CHECK(e.message.starts_with("--parallelize p.json: rule 'wq': regex 'wq' matches no op"));
  e = error_of({placements_rule("bad", "(", "R,R")});
  CHECK(e.kind == core::ErrorKind::kBadInput);
  CHECK(e.message.starts_with("--parallelize p.json: rule 'bad': regex '(' does not compile"));
  // The wq weight [64,64] has 9 options on 2x2 ({R,S(0),S(1)}^2).
  e = error_of({{"ix", "layers\\.0\\.attention\\.wq\\.weight", PinKind::kStrategy, {}, 9}});
  CHECK(e.kind == core::ErrorKind::kBadInput);
  CHECK(e.message ==
        "--parallelize p.json: rule 'ix': node 'layers.0.attention.wq.weight' has 9 "
        "strategies (0-8), not 9");
  e = error_of({placements_rule("p", "layers\\.0\\.attention\\.wq\\.weight", "P(sum),R")});
  CHECK(e.kind == core::ErrorKind::kUnsupported);
  CHECK(e.message.find("cannot be laid out as P(sum),R") != std::string::npos);
  e = error_of({placements_rule("a", "layers\\.0\\.attention\\.wq\\.weight", "S(0),R"),
                placements_rule("b", "layers\\.\\d\\.attention\\.wq\\.weight", "R,R")});
  CHECK(e.kind == core::ErrorKind::kUnsupported);
  CHECK(e.message ==
        "--parallelize p.json: rule 'b': node 'layers.0.attention.wq.weight' is "
        "pinned to R,R here and to S(0),R by rule 'a'");
}

TEST_CASE("literal_pattern and data_layout_pins: exact names; inputs, outputs and tangents") {
  CHECK(literal_pattern("layers.0.attention.wq.weight") == "layers\\.0\\.attention\\.wq\\.weight");
  CHECK(literal_pattern("a(b)+c_1") == "a\\(b\\)\\+c_1");
  plan::Plan p;
  p.ops.push_back({.name = "tokens", .role = core::OpRole::kInput, .placements = pl("S(0),S(0)")});
  p.ops.push_back({.name = "w.weight", .role = core::OpRole::kParam, .placements = pl("S(0),R")});
  p.ops.push_back(
      {.name = "out.alias", .role = core::OpRole::kOutput, .placements = pl("S(0),S(2)")});
  p.ops.push_back(
      {.name = "logits.tangent", .role = core::OpRole::kTangent, .placements = pl("S(0),S(2)")});
  const PinSet pins = data_layout_pins(p, "--compare-optimal");
  CHECK(pins.source == "--compare-optimal");
  CHECK(pins.rules ==
        std::vector<PinRule>{
            {"tokens", "tokens", PinKind::kPlacements, pl("S(0),S(0)"), 0},
            {"out.alias", "out\\.alias", PinKind::kPlacements, pl("S(0),S(2)"), 0},
            {"logits.tangent", "logits\\.tangent", PinKind::kPlacements, pl("S(0),S(2)"), 0}});
}

TEST_CASE("plan_graph with pins: pins honoured, the rest optimal, never below the free optimum") {
  const graph::Graph& g = tiny_llama3_graph(2);
  const auto ctx = context({2, 2}, {"dp", "tp"});
  const ModelPlan free = plan_or_fail(g, ctx, {});
  ModelPlanOptions o;
  o.pins = pin_set({placements_rule("wq", "layers\\.\\d+\\.attention\\.wq\\.weight", "S(0),R"),
                    placements_rule("wo", "layers\\.\\d+\\.attention\\.wo\\.weight", "R,S(1)")});
  const ModelPlan pinned = plan_or_fail(g, ctx, o);
  CHECK(pinned.stats.pin_matches == std::vector<std::int64_t>{2, 2});
  for (const std::string l : {"0", "1"}) {
    CHECK(op_named(pinned.plan, "layers." + l + ".attention.wq.weight").placements == pl("S(0),R"));
    CHECK(op_named(pinned.plan, "layers." + l + ".attention.wo.weight").placements == pl("R,S(1)"));
  }
  CHECK(pinned.plan.solver.optimal);
  CHECK(pinned.plan.solver.objective_us >= free.plan.solver.objective_us - 1e-9);
  // The free optimum does not choose these placements, so the pinned plan costs more.
  CHECK(op_named(free.plan, "layers.0.attention.wq.weight").placements != pl("S(0),R"));
  CHECK(pinned.plan.solver.objective_us > free.plan.solver.objective_us);
  // The greedy solver honours the same pins, never below the exact pinned optimum.
  ModelPlanOptions greedy = o;
  greedy.solver = solve::SolverKind::kGreedy;
  const ModelPlan g_pinned = plan_or_fail(g, ctx, greedy);
  CHECK(op_named(g_pinned.plan, "layers.1.attention.wq.weight").placements == pl("S(0),R"));
  CHECK(g_pinned.plan.solver.objective_us >= pinned.plan.solver.objective_us - 1e-9);

  // Pinning every parameter to the free optimum's own placements changes nothing.
  ModelPlanOptions same;
  std::vector<PinRule> rules;
  for (const graph::Node& n : g.nodes()) {
    if (n.role != core::OpRole::kParam) continue;
    rules.push_back({n.name, literal_pattern(n.name), PinKind::kPlacements,
                     op_named(free.plan, n.name).placements, 0});
  }
  same.pins = pin_set(std::move(rules));
  const ModelPlan again = plan_or_fail(g, ctx, same);
  CHECK(again.plan.solver.objective_us == doctest::Approx(free.plan.solver.objective_us));
}

TEST_CASE("plan_graph with pins: a tie the pins break is infeasible, naming both rules") {
  const graph::Graph& g = tiny_llama3_graph(1);
  const auto ctx = context({2, 2}, {"dp", "tp"});
  ModelPlanOptions o;
  // A gradient has its parameter's placements (the tie is on the gradient's alias).
  o.pins =
      pin_set({placements_rule("w", "layers\\.0\\.attention\\.wq\\.weight", "S(0),R"),
               placements_rule("g", "layers\\.0\\.bwd\\.attention\\.wq\\.grad_weight_cast\\.alias",
                               "R,R")});
  auto r = plan_graph(g, ctx.mesh(), h100(), o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == core::ErrorKind::kUnsupported);
  CHECK(r.error().message ==
        "--parallelize p.json: no feasible plan: rules 'w', 'g' conflict: node "
        "'layers.0.attention.wq.weight' and node "
        "'layers.0.bwd.attention.wq.grad_weight_cast.alias' have no allowed pair of strategies");
}

}  // namespace dtplan::strategy::testing
