// The synthetic problem generators: deterministic for a seed, shaped as documented.

#include "solve/generate.h"

#include <doctest/doctest.h>

#include <algorithm>

namespace dtplan::solve {
namespace {

TEST_CASE("random_problem: same spec, same problem; shapes and constraints as asked") {
  RandomProblemSpec spec;
  spec.nodes = 9;
  spec.followers = 2;
  spec.pins = 2;
  spec.memory_rows = 1;
  spec.seed = 42;
  CHECK(random_problem(spec) == random_problem(spec));
  spec.seed = 43;
  const Problem p = random_problem(spec);
  CHECK(p.nodes.size() == 9);
  CHECK(p.edges.size() == 8);  // a chain
  CHECK(p.memory.size() == 1);
  CHECK(p.pins.size() == 2);
  CHECK(validate(p).ok());
  for (const Node& n : p.nodes) {
    CHECK(n.cost_us.size() >= 2);
    CHECK(n.cost_us.size() <= 3);
    for (double c : n.cost_us) CHECK(c == static_cast<double>(static_cast<int>(c)));  // integers
  }
  spec.shape = Shape::kGrid;
  CHECK(random_problem(spec).edges.size() == 12);  // 3x3 grid: 6 horizontal + 6 vertical
  spec.shape = Shape::kTree;
  CHECK(random_problem(spec).edges.size() == 8);
}

TEST_CASE("layered_problem: LLaMA-like stacks with a repeat annotation") {
  LayeredProblemSpec spec;
  spec.layers = 4;
  spec.nodes_per_layer = 60;
  spec.memory_row = true;
  const Problem p = layered_problem(spec);
  CHECK(p == layered_problem(spec));
  CHECK(validate(p).ok());
  CHECK(p.nodes.size() == static_cast<std::size_t>(8 + 4 * 60 + 8));
  const double per_node = static_cast<double>(p.edges.size()) / static_cast<double>(p.nodes.size());
  CHECK(per_node > 1.1);
  CHECK(per_node < 1.6);
  REQUIRE(p.repeats.size() == 1);
  CHECK(p.repeats[0].blocks.size() == 4);
  REQUIRE(p.memory.size() == 1);
  CHECK(p.memory[0].terms.size() == 4 * 4);  // parameters at positions 7, 23, 39, 55 of a layer
  // Every layer is a copy of the first: same unary costs position by position.
  for (std::size_t k = 0; k < p.repeats[0].blocks[0].size(); ++k) {
    CHECK(p.nodes[p.repeats[0].blocks[3][k]].cost_us == p.nodes[p.repeats[0].blocks[0][k]].cost_us);
  }
  std::size_t most = 0;
  for (const Node& n : p.nodes) most = std::max(most, n.cost_us.size());
  CHECK(most >= 7);
  spec.label_scale = 2;
  spec.annotate_repeats = false;
  const Problem big = layered_problem(spec);
  CHECK(big.repeats.empty());
  CHECK(problem_size(big).labels > problem_size(p).labels);
}

}  // namespace
}  // namespace dtplan::solve
