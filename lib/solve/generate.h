#pragma once
// Synthetic labelling problems for tests and benchmarks, fully determined by their spec (seeded
// std::mt19937_64; same spec, same problem on every platform).
//
// random_problem: small problems of a chosen shape with integer costs (so optimal objectives are
// exact in double arithmetic and different solvers can be compared with ==), optional forbidden
// pairs, followers, pins and memory rows.
//
// layered_problem: shaped like the joint graph of a LLaMA3 decoder stack
// (docs/reference/strategy_selection.md §2.12, §5): a prologue, `layers` identical layers and an
// epilogue. A layer is a chain of ops with labels drawn like DTensor strategy counts (15 for
// activations, 24 for einsums, 23 for attention layouts, 7 for SDPA, a rare 100-200), two residual
// skip edges (layer input -> attention add, attention add -> layer output), short skips (multi-user
// tensors), and parameter leaves with 9 labels whose bytes shrink with sharding (full, /8, /64).
// Redistribution matrices are 0 on matching placements, positive elsewhere, with a few forbidden
// (+inf) pairs; the layers are listed as one RepeatGroup when annotate_repeats is set.
//
// Example: layered_problem({.layers = 2, .nodes_per_layer = 300}) has 2 * 300 + prologue +
// epilogue nodes and about 1.4 edges per node.

#include <cstdint>

#include "solve/problem.h"

namespace dtplan::solve {

enum class Shape : std::uint8_t { kChain, kTree, kSkipChain, kGrid };

struct RandomProblemSpec {
  Shape shape = Shape::kChain;
  std::int32_t nodes = 6;
  std::int32_t min_labels = 2;
  std::int32_t max_labels = 3;
  std::int32_t max_cost = 9;      // costs are integers in [0, max_cost]
  double forbidden_fraction = 0;  // share of edge entries set to +inf
  std::int32_t followers = 0;
  std::int32_t pins = 0;
  std::int32_t memory_rows = 0;  // each over about half the nodes, bytes in [0, 9]
  std::uint64_t seed = 1;
};

Problem random_problem(const RandomProblemSpec& spec);

struct LayeredProblemSpec {
  std::int32_t layers = 32;
  std::int32_t nodes_per_layer = 300;
  std::int32_t prologue_nodes = 8;
  std::int32_t epilogue_nodes = 8;
  double label_scale = 1;  // multiplies label counts (3-D meshes have more)
  bool annotate_repeats = true;
  bool memory_row = false;     // a parameter-memory row over every parameter leaf
  double memory_budget = 0.5;  // its high bound: min + budget * (max - min) bytes
  bool integer_costs = false;  // round costs to integers (exact comparisons in tests)
  std::uint64_t seed = 1;
};

Problem layered_problem(const LayeredProblemSpec& spec);

}  // namespace dtplan::solve
