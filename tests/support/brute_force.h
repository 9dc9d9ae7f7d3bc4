#pragma once
// Exhaustive search over every labelling of a small solve::Problem: the reference the solvers are
// checked against. Feasibility is checked directly (forbidden labels and pairs, pins, followers,
// memory rows), the objective is summed exactly as evaluate() sums it.

#include <vector>

#include "solve/problem.h"

namespace dtplan::testing {

struct BruteForceResult {
  bool feasible = false;
  double objective_us = 0;
  std::vector<solve::LabelIndex> labels;  // the first optimum in lexicographic order
};

// @pre the product of label counts is at most a few million.
BruteForceResult brute_force(const solve::Problem& problem);

}  // namespace dtplan::testing
