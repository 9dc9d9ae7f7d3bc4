#include "graph/graph.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>

namespace dtplan::graph {
namespace {

Node leaf(std::string name) {
  Node n;
  n.name = std::move(name);
  n.op = OpKind::kPlaceholder;
  n.role = core::OpRole::kInput;
  n.outputs = {TensorMeta{{4}, core::DType::kF32}};
  return n;
}

Node op(std::string name, OpKind kind, std::vector<NodeId> inputs) {
  Node n;
  n.name = std::move(name);
  n.op = kind;
  n.inputs = std::move(inputs);
  n.outputs = {TensorMeta{{4}, core::DType::kF32}};
  return n;
}

TEST_CASE("graph: add_node keeps names unique and inputs earlier") {
  Graph g("g");
  NodeId x = g.add_node(leaf("x")).value();
  NodeId y = g.add_node(op("y", OpKind::kMul, {x, x})).value();
  CHECK(index_of(y) == 1);
  CHECK(g.find("y") == y);
  CHECK_FALSE(g.find("z").has_value());
  CHECK(g.add_node(leaf("x")).error().message ==
        "node 'x' field 'name': duplicate name (names must be unique)");
  CHECK(g.add_node(leaf("")).error().message == "node #2 field 'name': must not be empty");
  CHECK(g.add_node(op("z", OpKind::kNeg, {NodeId{5}})).error().message ==
        "node 'z' field 'inputs'[0]: node id 5 is not an earlier node");
  CHECK(g.add_node(op("z", OpKind::kNeg, {kNoNode})).error().message ==
        "node 'z' field 'inputs'[0]: node id -1 is not an earlier node");
  CHECK(g.size() == 2);
  Graph copy = g;
  CHECK(copy == g);
  copy.mutable_node(y).layer = 3;
  CHECK_FALSE(copy == g);
}

TEST_CASE("graph: users are distinct consumers in graph order") {
  Graph g("g");
  NodeId x = g.add_node(leaf("x")).value();
  NodeId sq = g.add_node(op("sq", OpKind::kMul, {x, x})).value();  // two slots, one user
  NodeId a = g.add_node(op("a", OpKind::kAdd, {sq, x})).value();
  NodeId b = g.add_node(op("b", OpKind::kNeg, {a})).value();
  UserIndex users(g);
  CHECK(std::vector<NodeId>(users.of(x).begin(), users.of(x).end()) == std::vector<NodeId>{sq, a});
  CHECK(users.of(sq).size() == 1);
  CHECK(users.of(b).empty());
  CHECK(distinct_inputs(g.node(sq)) == std::vector<NodeId>{x});
}

TEST_CASE("graph: distinct_inputs keeps first occurrences, small and large") {
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 100; ++trial) {
    Node n;
    const std::size_t slots = 1 + rng() % 60;  // crosses the small/large threshold
    for (std::size_t i = 0; i < slots; ++i)
      n.inputs.push_back(NodeId{static_cast<int>(rng() % 20)});
    std::vector<NodeId> want;
    for (NodeId id : n.inputs) {
      if (std::find(want.begin(), want.end(), id) == want.end()) want.push_back(id);
    }
    CHECK(distinct_inputs(n) == want);
  }
}

}  // namespace
}  // namespace dtplan::graph
