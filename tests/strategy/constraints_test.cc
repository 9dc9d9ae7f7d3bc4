#include "strategy/constraints.h"

#include <doctest/doctest.h>

#include "graph/graph_builder.h"
#include "support/selection_testing.h"
#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {

TEST_CASE("constraints: default input and output placements on 1-D, 2-D and 3-D meshes") {
  CHECK(default_input_placements(2, 1) == pl("S(0)"));
  CHECK(default_input_placements(2, 2) == pl("S(0),R"));
  CHECK(default_input_placements(2, 3) == pl("S(0),R,R"));
  CHECK(default_output_placements(3, 1) == pl("S(0)"));
  CHECK(default_output_placements(3, 2) == pl("S(0),S(2)"));
  CHECK(default_output_placements(3, 3) == pl("S(0),R,S(2)"));
  CHECK(default_output_placements(1, 2) == pl("S(0),R"));  // rank 1: no vocab dim to shard
  CHECK(default_input_placements(0, 2) == pl("R,R"));      // a scalar stays replicated
}

TEST_CASE("constraints: LLaMA3 defaults pin tokens and logits, tie gradients and the tangent") {
  const graph::Graph& g = tiny_llama3_graph(1);
  const Enumerated e = enumerate(g, {2, 2});
  const Constraints c = default_constraints(g, e.strategies, 2);
  auto pin_of = [&](const std::string& name) -> const NodePin* {
    const auto id = g.find(name);
    REQUIRE(id.has_value());
    for (const NodePin& p : c.pins) {
      if (p.node == *id) return &p;
    }
    return nullptr;
  };
  REQUIRE(pin_of("tokens") != nullptr);
  CHECK(pin_of("tokens")->placements == pl("S(0),R"));
  REQUIRE(pin_of("output.einsum.alias") != nullptr);
  CHECK(pin_of("output.einsum.alias")->placements == pl("S(0),S(2)"));
  // The tangent is tied to the output, so it gets the output's pin too.
  REQUIRE(pin_of("logits.tangent") != nullptr);
  CHECK(pin_of("logits.tangent")->placements == pl("S(0),S(2)"));
  CHECK(c.pins.size() == 3);
  // Every parameter is tied to its gradient (leader: the parameter, the earlier node), and the
  // tangent to the output.
  std::size_t params = 0;
  for (const graph::Node& n : g.nodes()) params += n.role == core::OpRole::kParam ? 1 : 0;
  CHECK(c.ties.size() == params + 1);
  for (const PairTie& t : c.ties) {
    CHECK(graph::index_of(t.leader) < graph::index_of(t.follower));
    CHECK(g.node(t.leader).pair == t.follower);
    CHECK(g.node(t.follower).pair == t.leader);
  }
  for (std::size_t i = 1; i < c.pins.size(); ++i) {
    CHECK(graph::index_of(c.pins[i - 1].node) < graph::index_of(c.pins[i].node));
  }
  CHECK_FALSE(c.memory_limit_bytes.has_value());
}

TEST_CASE("constraints: a default the node cannot take is left out") {
  // The tiny model's batch is 4: S(0) over a mesh dim of 8 is not an option of tokens [4,16].
  const graph::Graph& g = tiny_llama3_graph(1);
  const Enumerated e = enumerate(g, {8});
  const Constraints c = default_constraints(g, e.strategies, 1);
  for (const NodePin& p : c.pins) {
    CHECK(offers(e.strategies.of(p.node), p.placements));
    CHECK(g.node(p.node).name != "tokens");
  }
  // On a mesh dim of 4 the batch splits, so tokens is pinned.
  const Enumerated e4 = enumerate(g, {4});
  const Constraints c4 = default_constraints(g, e4.strategies, 1);
  bool tokens = false;
  for (const NodePin& p : c4.pins) tokens = tokens || g.node(p.node).name == "tokens";
  CHECK(tokens);
}

TEST_CASE("constraints: offers() looks at output 0 of every strategy") {
  const Enumerated e = enumerate(tiny_llama3_graph(1), {2, 2});
  const OpStrategy& w = e.of("layers.0.attention.wq.weight");
  for (const Strategy& s : w.strategies) CHECK(offers(w, s.outputs[0]));
  CHECK_FALSE(offers(w, pl("P(sum),R")));  // leaves have no Partial options
}

}  // namespace dtplan::strategy::testing
