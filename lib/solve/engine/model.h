#pragma once
// Internal to lib/solve: a Problem as the elimination engine sees it.
//
// Engine variables are the problem's nodes (same indices, domains = label counts). Every node gets
// a unary factor: scalar, or a frontier table with one point (bytes per row, cost) per label when
// the node has memory terms. Every edge is a factor over {from, to} holding its matrix. Pins become
// +inf unary entries and followers 0/+inf factors, so any valid Problem converts (the exact solver
// simplifies first, which removes both).
//
// Example: node a (labels {1, 2}) with memory term {8, 2} in row 'params' has the frontier unary
// entry 0 = [(8 B, 1 us)], entry 1 = [(2 B, 2 us)].

#include <cstdint>
#include <vector>

#include "solve/engine/table.h"
#include "solve/problem.h"

namespace dtplan::solve::detail {

struct EngineProblem {
  std::vector<std::int32_t> domains;
  std::vector<Factor> factors;
  MemoryModel memory;
  std::vector<std::int32_t> unary;  // per node: index of its unary factor
};

// The memory model of the problem's rows: bounds, directions and Σ min/max bytes.
// @pre validate(problem) passed (row sums fit in int64).
MemoryModel memory_model(const Problem& problem);

// Converts a valid problem, taking over its cost vectors. Unaries come first (factor i = node i),
// then edges in edge order, then followers in follower order.
EngineProblem build_engine_problem(Problem problem);

// The same problem without memory rows: scalar unaries, everything else shared.
EngineProblem without_memory(const EngineProblem& problem);

}  // namespace dtplan::solve::detail
