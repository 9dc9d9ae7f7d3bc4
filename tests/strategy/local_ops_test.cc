#include "strategy/local_ops.h"

#include <doctest/doctest.h>

#include "graph/graph_builder.h"
#include "support/selection_testing.h"
#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {

namespace {

// x, w: inputs [8,8]; sq = x * x; prod = sq * w; on a mesh of 2.
Enumerated chain() {
  graph::GraphBuilder b("chain");
  const graph::NodeId x = b.placeholder("x", core::OpRole::kInput, f32({8, 8}));
  const graph::NodeId w = b.placeholder("w", core::OpRole::kInput, f32({8, 8}));
  const graph::NodeId sq = b.op(OpKind::kMul, "sq", {x, x});
  b.op(OpKind::kMul, "prod", {sq, w});
  return enumerate(finish(std::move(b)), {2});
}

std::size_t at(const Enumerated& e, const std::string& name) {
  return static_cast<std::size_t>(graph::index_of(*e.graph.find(name)));
}

}  // namespace

TEST_CASE("fix_local_ops: an op reads its fixed producers as produced, the cheapest such") {
  const Enumerated e = chain();
  std::vector<std::int32_t> fixed(e.graph.size(), -1);
  std::vector<char> eligible(e.graph.size(), 1);
  fixed[at(e, "x")] = strategy_index(e.of("x"), "S(0) <-");
  REQUIRE(fixed[at(e, "x")] >= 0);
  fix_local_ops(e.graph, e.strategies, eligible, fixed);

  const OpStrategy& sq = e.of("sq");
  const std::int32_t s = fixed[at(e, "sq")];
  REQUIRE(s >= 0);
  const Strategy& chosen = sq.strategies[static_cast<std::size_t>(s)];
  CHECK(chosen.inputs == std::vector<Placements>{pl("S(0)"), pl("S(0)")});
  CHECK(chosen.outputs[0] == pl("S(0)"));
  // The cheapest in compute of the strategies reading both slots as S(0), the lowest index
  // among equals.
  for (std::size_t o = 0; o < sq.size(); ++o) {
    if (sq.strategies[o].inputs != chosen.inputs) continue;
    CHECK(sq.strategies[o].compute_us >= chosen.compute_us);
    if (o < static_cast<std::size_t>(s)) CHECK(sq.strategies[o].compute_us > chosen.compute_us);
  }
  // prod's second producer (w) is free, so prod stays free; w itself has no inputs.
  CHECK(fixed[at(e, "prod")] == -1);
  CHECK(fixed[at(e, "w")] == -1);
}

TEST_CASE("fix_local_ops: a fixed chain propagates; an ineligible op and its readers stay free") {
  const Enumerated e = chain();
  std::vector<std::int32_t> fixed(e.graph.size(), -1);
  std::vector<char> eligible(e.graph.size(), 1);
  fixed[at(e, "x")] = strategy_index(e.of("x"), "R <-");
  fixed[at(e, "w")] = strategy_index(e.of("w"), "R <-");
  std::vector<std::int32_t> all = fixed;
  fix_local_ops(e.graph, e.strategies, eligible, all);
  REQUIRE(all[at(e, "sq")] >= 0);
  REQUIRE(all[at(e, "prod")] >= 0);
  const Strategy& prod = e.of("prod").strategies[static_cast<std::size_t>(all[at(e, "prod")])];
  CHECK(prod.inputs == std::vector<Placements>{pl("R"), pl("R")});  // sq's R, w's R

  eligible[at(e, "sq")] = 0;  // e.g. pinned to several layouts: its readers cannot know which
  fix_local_ops(e.graph, e.strategies, eligible, fixed);
  CHECK(fixed[at(e, "sq")] == -1);
  CHECK(fixed[at(e, "prod")] == -1);
}

TEST_CASE("one_layout: a strategy when every allowed one lays the outputs out alike") {
  const Enumerated e = chain();
  const OpStrategy& sq = e.of("sq");
  std::vector<char> allowed(sq.size(), 0);
  CHECK(one_layout(sq, allowed) == -1);  // none allowed
  std::vector<std::int32_t> s0;
  for (std::size_t o = 0; o < sq.size(); ++o) {
    if (sq.strategies[o].outputs[0] == pl("S(0)")) s0.push_back(static_cast<std::int32_t>(o));
  }
  REQUIRE(!s0.empty());
  for (std::int32_t o : s0) allowed[static_cast<std::size_t>(o)] = 1;
  CHECK(one_layout(sq, allowed) == s0.front());
  const std::int32_t replicated = strategy_index(sq, "R <- R; R");
  REQUIRE(replicated >= 0);
  allowed[static_cast<std::size_t>(replicated)] = 1;
  CHECK(one_layout(sq, allowed) == -1);  // S(0) and R outputs
}

}  // namespace dtplan::strategy::testing
