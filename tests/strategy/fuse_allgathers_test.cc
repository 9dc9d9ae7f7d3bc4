#include "strategy/fuse_allgathers.h"

#include <doctest/doctest.h>

#include "graph/graph_builder.h"
#include "plan/plan_summary.h"
#include "strategy/lower_plan.h"
#include "support/selection_testing.h"
#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {

namespace {

// x [8,8] -> alias -> permute -> permute (identity chain) -> neg, with x = S(0),S(0), the alias
// expecting S(0),R (an all_gather on tp) and neg expecting R,R (an all_gather on dp).
struct Chain {
  Enumerated e;
  std::vector<std::int32_t> choice;
  MemoryTerms memory;
};

Chain chain_graph(bool identity = true) {
  graph::GraphBuilder b("chain");
  const graph::NodeId x = b.placeholder("x", core::OpRole::kInput, f32({8, 8}));
  const graph::NodeId a = b.op(OpKind::kAlias, "a", {x});
  const graph::NodeId p1 = b.op(OpKind::kPermute, "p1", {a}, {{"dims", Ints{1, 0}}});
  const graph::NodeId last =
      identity ? b.op(OpKind::kPermute, "p2", {p1}, {{"dims", Ints{1, 0}}}) : p1;
  b.op(OpKind::kNeg, "neg", {last});
  Chain c{enumerate(finish(std::move(b)), {2, 2}), {}, {}};
  const std::vector<std::pair<std::string, std::string>> picks =
      identity ? std::vector<std::pair<std::string, std::string>>{{"x", "S(0),S(0) <-"},
                                                                  {"a", "S(0),R <- S(0),R"},
                                                                  {"p1", "S(1),R <- S(0),R"},
                                                                  {"p2", "S(0),R <- S(1),R"},
                                                                  {"neg", "R,R <- R,R"}}
               : std::vector<std::pair<std::string, std::string>>{{"x", "S(0),S(0) <-"},
                                                                  {"a", "S(0),R <- S(0),R"},
                                                                  {"p1", "S(1),R <- S(0),R"},
                                                                  {"neg", "R,R <- R,R"}};
  for (const auto& [name, text] : picks) {
    const std::int32_t i = strategy_index(c.e.of(name), text);
    const std::string what = name + ": " + text;
    REQUIRE_MESSAGE(i >= 0, what);
    c.choice.push_back(i);
  }
  c.memory = memory_terms(c.e.graph, c.e.strategies).value();
  return c;
}

plan::Plan lower(const Chain& c, EdgeCoster& coster) {
  auto p = lower_plan({c.e.graph, c.e.strategies, c.choice, c.memory, std::nullopt}, coster);
  REQUIRE_MESSAGE(p.ok(), (p.ok() ? "" : p.error().message));
  return std::move(p).value();
}

}  // namespace

TEST_CASE("fuse all-gathers: a chain through identity views becomes one flattened all_gather") {
  const Chain c = chain_graph();
  auto coster = make_coster(context({2, 2}, {"dp", "tp"}, {{"dp", "tp"}}));
  plan::Plan p = lower(c, *coster);
  REQUIRE(p.redistributions.size() == 2);
  CHECK(p.redistributions[0].plan.comm_counts.all_gather == 1);  // tp, into the alias
  CHECK(p.redistributions[1].plan.comm_counts.all_gather == 1);  // dp, into neg
  const double before = p.cost.total_us;
  const FuseResult r = fuse_chained_allgathers(p, c.e.graph, *coster).value();
  CHECK(r.fused == 1);
  CHECK(r.warnings.empty());
  REQUIRE(p.redistributions.size() == 1);
  const redist::RedistPlan& fused = p.redistributions[0].plan;
  REQUIRE(fused.steps.size() == 1);
  CHECK(fused.steps[0].transform.kind == redist::StepKind::kAllGather);
  CHECK(fused.steps[0].transform.flattened_mesh == "dp_tp");
  CHECK(fused.steps[0].group_size == 4);
  CHECK(p.ops[1].placements == pl("R,R"));  // the alias, p1 and p2 now carry the gathered tensor
  CHECK(p.ops[2].placements == pl("R,R"));
  CHECK(p.ops[3].placements == pl("R,R"));
  CHECK(p.ops[1].strategy == "R,R <- R,R");
  CHECK(plan::check_plan(p).ok());
  CHECK(p.cost.total_us < before);
  CHECK(p.cost == plan::cost_summary(p));
  REQUIRE(p.collectives.size() == 1);
  CHECK(p.collectives[0].count == 1);
  CHECK(p.collectives[0].flattened == "dp_tp");
}

TEST_CASE("fuse all-gathers: without a flattened mesh the chain stays, with a warning") {
  const Chain c = chain_graph();
  auto coster = make_coster(context({2, 2}, {"dp", "tp"}));
  plan::Plan p = lower(c, *coster);
  const plan::Plan before = p;
  const FuseResult r = fuse_chained_allgathers(p, c.e.graph, *coster).value();
  CHECK(r.fused == 0);
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].reason == redist::WarningReason::kNoFlattenedMesh);
  CHECK(r.warnings[0].mesh_dims == std::vector<std::int32_t>{0, 1});
  CHECK(r.warnings[0].message ==
        "chained all_gathers on mesh dims tp and dp through 'a', 'p1', 'p2' could run as one "
        "all_gather on a flattened mesh over dp,tp, but the mesh has none; flatten those dims");
  CHECK(p.redistributions == before.redistributions);
  CHECK(p.ops == before.ops);
  REQUIRE(p.warnings.size() == 1);
  CHECK(p.warnings[0] == r.warnings[0]);
}

TEST_CASE("fuse all-gathers: a chain that is not the identity is left alone") {
  // One permute: the gathered tensor dims differ (S(1) after the transpose), so no fusion and no
  // warning.
  const Chain c = chain_graph(false);
  auto coster = make_coster(context({2, 2}, {"dp", "tp"}, {{"dp", "tp"}}));
  plan::Plan p = lower(c, *coster);
  const plan::Plan before = p;
  const FuseResult r = fuse_chained_allgathers(p, c.e.graph, *coster).value();
  CHECK(r.fused == 0);
  CHECK(r.warnings.empty());
  CHECK(p == before);
}

}  // namespace dtplan::strategy::testing
