// validate(): every malformed input is rejected with a message naming the item, and the valid
// problems the generators produce pass.

#include "solve/problem.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "solve/generate.h"

namespace dtplan::solve {
namespace {

Problem base() {
  Problem p;
  p.nodes = {{"a", {1, 2}}, {"b", {3, 0, 4}}};
  p.edges = {{0, 1, 0, {0, 5, 5, 5, 0, 5}}};
  return p;
}

std::string error_of(const Problem& p) {
  const core::Status s = validate(p);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().kind == core::ErrorKind::kBadInput);
  return s.error().message;
}

TEST_CASE("validate accepts well-formed problems") {
  CHECK(validate(base()).ok());
  CHECK(validate(Problem{}).ok());  // no nodes: a trivial problem
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    RandomProblemSpec spec;
    spec.shape = static_cast<Shape>(seed % 4);
    spec.followers = 2;
    spec.pins = 2;
    spec.memory_rows = 2;
    spec.seed = seed;
    CHECK(validate(random_problem(spec)).ok());
  }
  CHECK(validate(layered_problem({.layers = 3, .nodes_per_layer = 20, .memory_row = true})).ok());
  const ProblemSize size = problem_size(base());
  CHECK(size == ProblemSize{2, 1, 5});
}

TEST_CASE("validate names the offending item") {
  Problem p = base();
  p.nodes[0].cost_us.clear();
  CHECK(error_of(p) == "node 0 'a': has no labels");

  p = base();
  p.nodes[1].cost_us[2] = std::nan("");
  CHECK(error_of(p) == "node 1 'b': cost 2 is NaN");

  p = base();
  p.edges[0].cost_us.edit().pop_back();
  CHECK(error_of(p) == "edge 0 (a -> b): matrix has 5 entries, expected 6");

  p = base();
  p.edges[0].to = 7;
  CHECK(error_of(p).find("edge 0: endpoint out of range") == 0);

  p = base();
  p.edges[0].to = 0;
  p.edges[0].cost_us = {0, 0, 0, 0};
  CHECK(error_of(p) == "edge 0 (a -> a): connects a node to itself");

  p = base();
  p.edges.push_back(p.edges[0]);
  CHECK(error_of(p) == "edge 1 (a -> b): slot 0 of the consumer is fed twice");

  p = base();
  p.edges[0].cost_us.edit()[0] = -kForbidden;
  CHECK(error_of(p) == "edge 0 (a -> b): cost 0 is -inf");

  p = base();
  p.followers = {{1, 0, {0, 3}}};
  CHECK(error_of(p).find("follower 0: label map entry 3") == 0);
  p.followers = {{1, 0, {0}}};
  CHECK(error_of(p).find("follower 0: label map has 1 entries") == 0);
  p.followers = {{1, 0, {0, 1}}, {0, 1, {0, 1, -1}}};
  CHECK(error_of(p).find("is on a cycle of followers") != std::string::npos);

  p = base();
  p.pins = {{1, {3}}};
  CHECK(error_of(p) == "pin 0: label 3 is not a label of node 1 'b'");

  p = base();
  p.memory = {{"params", {{0, {4, -1}}}, 0, 10}};
  CHECK(error_of(p) == "memory row 'params': node 0 'a' has a negative byte count");
  p.memory = {{"params", {{0, {4, 1}}, {0, {4, 1}}}, 0, 10}};
  CHECK(error_of(p) == "memory row 'params': node 0 'a' appears twice");
  p.memory = {{"params", {{0, {4, 1}}}, 11, 10}};
  CHECK(error_of(p) == "memory row 'params': low 11 above high 10");
  p.memory = {{"params", {{0, {INT64_MAX, 1}}, {1, {1, 1, 1}}}, 0, 10}};
  CHECK(error_of(p).find("overflows") != std::string::npos);

  p = base();
  p.repeats = {{{{0}, {1}}}};
  CHECK(error_of(p) == "repeat group 0: position 0 has 3 labels in block 1 and 2 in block 0");
  p.repeats = {{{{0}, {0}}}};
  CHECK(error_of(p) == "repeat group 0: node 0 'a' is in two blocks");
  p.repeats = {{{{0}, {}}}};
  CHECK(error_of(p) == "repeat group 0: block 1 has 0 nodes, block 0 has 1");
}

}  // namespace
}  // namespace dtplan::solve
