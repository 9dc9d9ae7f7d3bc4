#include "graph/alias_pass.h"

#include <doctest/doctest.h>

#include "graph/graph_builder.h"
#include "graph/llama3_builder.h"
#include "graph/validate.h"

namespace dtplan::graph {
namespace {

using core::DType;

TEST_CASE("alias pass: multi-user nodes and outputs get one alias before the first user") {
  GraphBuilder b("g");
  NodeId x = b.placeholder("x", core::OpRole::kInput, {{4, 8}, DType::kBF16});
  NodeId w = b.placeholder("w", core::OpRole::kParam, {{4, 8}, DType::kBF16});
  b.scope("", 2, Phase::kForward);
  NodeId sq = b.op(OpKind::kMul, "sq", {x, x});  // x: users sq, y -> alias
  NodeId y = b.op(OpKind::kAdd, "y", {sq, x});   // y: user out (output) -> alias
  NodeId z = b.op(OpKind::kNeg, "z", {sq});      // sq: users z only (and y): 2 users -> alias
  b.scope("", 2, Phase::kBackward);
  NodeId gw = b.op(OpKind::kMul, "gw", {z, w});
  b.pair(w, core::OpRole::kParam, gw, core::OpRole::kGrad);
  b.scope("", -1, Phase::kBackward);
  b.output({y, gw});
  Graph g = std::move(b).finish().value();
  REQUIRE(validate(g).ok());

  Graph a = insert_aliases(g).value();
  REQUIRE(validate(a).ok());
  std::vector<std::string> names;
  for (const Node& n : a.nodes()) names.push_back(n.name);
  CHECK(names == std::vector<std::string>{"x", "w", "x.alias", "sq", "sq.alias", "y", "z", "gw",
                                          "y.alias", "gw.alias", "output"});
  const Node& xa = a.node(*a.find("x.alias"));
  CHECK(xa.op == OpKind::kAlias);
  CHECK(xa.layer == 2);  // the users' layer, not the placeholder's -1
  CHECK(xa.phase == Phase::kForward);
  CHECK(a.node(*a.find("sq")).inputs ==
        std::vector<NodeId>{*a.find("x.alias"), *a.find("x.alias")});
  CHECK(a.node(*a.find("y")).inputs ==
        std::vector<NodeId>{*a.find("sq.alias"), *a.find("x.alias")});
  // The gradient role and its pair move to the alias the output node reads.
  const Node& gwa = a.node(*a.find("gw.alias"));
  CHECK(gwa.role == core::OpRole::kGrad);
  CHECK(gwa.pair == *a.find("w"));
  CHECK(gwa.layer == 2);  // no user besides the output node: the producer's layer
  CHECK(gwa.phase == Phase::kBackward);
  CHECK(a.node(*a.find("w")).pair == *a.find("gw.alias"));
  CHECK(a.node(*a.find("gw")).role == core::OpRole::kNone);
  CHECK(a.node(*a.find("output")).inputs ==
        std::vector<NodeId>{*a.find("y.alias"), *a.find("gw.alias")});
  // Idempotent.
  CHECK(insert_aliases(a).value() == a);
}

TEST_CASE("alias pass: post-conditions on the LLaMA3 joint graph") {
  Llama3Config c;
  c.n_layers = 2;
  Graph g = build_llama3(c).value();  // already aliased
  UserIndex users(g);
  const NodeId out = *find_output_node(g);
  for (std::size_t i = 0; i < g.size(); ++i) {
    const Node& n = g.nodes()[i];
    CAPTURE(n.name);
    if (n.op == OpKind::kAlias || n.op == OpKind::kOutput || n.outputs.size() != 1) continue;
    auto u = users.of(node_id(i));
    CHECK(u.size() <= 1);
    if (u.size() == 1) CHECK(u[0] != out);
  }
  for (NodeId in : g.node(out).inputs) CHECK(g.node(in).op == OpKind::kAlias);
  CHECK(insert_aliases(g).value() == g);
}

}  // namespace
}  // namespace dtplan::graph
