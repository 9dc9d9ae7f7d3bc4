#include "graph/graph_builder.h"

#include <doctest/doctest.h>

#include "graph/validate.h"

namespace dtplan::graph {
namespace {

using core::DType;

TEST_CASE("graph builder: scoped names, inferred outputs, pairs") {
  GraphBuilder b("mlp");
  NodeId x = b.placeholder("x", core::OpRole::kInput, {{4, 8}, DType::kBF16});
  NodeId w = b.placeholder("w", core::OpRole::kParam, {{8, 2}, DType::kBF16});
  b.scope("layers.0", 0, Phase::kForward);
  NodeId y = b.op(OpKind::kMm, "mm", {x, w});
  NodeId s = b.op(OpKind::kSum, "sum", {y}, {{"dim", std::int64_t{1}}, {"keepdim", true}});
  NodeId parts = b.op(OpKind::kSplit, "split", {x},
                      {{"split_size", std::int64_t{4}}, {"dim", std::int64_t{1}}});
  NodeId p1 = b.getitem(parts, 1, "p1");
  b.scope("layers.0.bwd", 0, Phase::kBackward);
  NodeId xt = b.op(OpKind::kT, "xt", {x});
  NodeId gw = b.op(OpKind::kMm, "gw", {xt, y});
  b.pair(w, core::OpRole::kParam, gw, core::OpRole::kGrad);
  b.set_checkpoint(y, Checkpoint::kSave);
  b.scope("", -1, Phase::kBackward);
  b.output({s, p1, gw});
  CHECK(b.ok());
  CHECK(b.meta(y) == TensorMeta{{4, 2}, DType::kBF16});
  Graph g = std::move(b).finish().value();
  CHECK(validate(g).ok());
  CHECK(g.node(y).name == "layers.0.mm");
  CHECK(g.node(y).layer == 0);
  CHECK(g.node(y).checkpoint == Checkpoint::kSave);
  CHECK(g.node(gw).name == "layers.0.bwd.gw");
  CHECK(g.node(gw).phase == Phase::kBackward);
  CHECK(g.node(p1).outputs[0] == TensorMeta{{4, 4}, DType::kBF16});
  CHECK(g.node(p1).attrs.get_int("index").value() == 1);
  CHECK(g.node(w).pair == gw);
  CHECK(g.node(gw).pair == w);
  CHECK(g.node(*find_output_node(g)).inputs == std::vector<NodeId>{s, p1, gw});
}

TEST_CASE("graph builder: the first error is latched and returned") {
  GraphBuilder b("bad");
  NodeId x = b.placeholder("x", core::OpRole::kInput, {{4, 8}, DType::kBF16});
  NodeId y = b.op(OpKind::kMm, "mm", {x, x});  // [4,8] x [4,8]: inner sizes differ
  CHECK(y == kNoNode);
  CHECK_FALSE(b.ok());
  NodeId z = b.op(OpKind::kNeg, "neg", {x});  // ignored after the error
  CHECK(z == kNoNode);
  CHECK(b.meta(z) == TensorMeta{});
  auto g = std::move(b).finish();
  REQUIRE_FALSE(g.ok());
  CHECK(g.error().message == "node 'mm' field 'inputs': mm needs [m,k] x [k,n], got [4,8] x [4,8]");

  GraphBuilder dup("dup");
  dup.placeholder("x", core::OpRole::kInput, {{1}, DType::kF32});
  dup.placeholder("x", core::OpRole::kInput, {{1}, DType::kF32});
  CHECK(std::move(dup).finish().error().message ==
        "node 'x' field 'name': duplicate name (names must be unique)");
}

}  // namespace
}  // namespace dtplan::graph
