#pragma once
// Worked example problems shared by the solve tests (their optima are computed in the comments).

#include <cstdint>

#include "solve/problem.h"
#include "solve/solver.h"

namespace dtplan::testing {

// problem.h's example: a = {1, 2}, b = {3, 0}, edge a -> b free when the labels agree, 5 otherwise.
// (0,0) = 1+3+0 = 4, (0,1) = 1+0+5 = 6, (1,0) = 2+3+5 = 10, (1,1) = 2+0+0 = 2.
solve::Problem two_nodes();

// a -> b -> c; a = {0, 4}, b = {2, 2}, c = {0, 3}; agreeing labels are free on edges, 1 otherwise;
// a and c hold parameters of {10, 1} bytes in the row 'params' with high bound `high`.
// Unconstrained: a=b=c=0, cost 2, 20 bytes. Within 11 bytes: a=0,c=1 costs
// 0 + 3 + min(b=0: 2+0+1, b=1: 2+1+0) = 6; a=1,c=0 costs 7; a=1,c=1 costs 9 (2 bytes).
solve::Problem memory_chain(std::int64_t high);

// `blocks` layers, each a triangle of 2-label nodes whose edges cost 1 where the labels agree (no
// labelling of a triangle avoids it: every layer costs at least 1, while the LP, at 1/2 on every
// label, pays 0), node 0 of each layer feeding node 0 of the next at 0 where the labels agree and
// 2 otherwise; one node outside the layers, a 2-label hub with unary (0, 1), feeds node 1 of every
// layer at 0 (so the hub is free and takes label 0). The optimum is `blocks`: one labelling
// repeated in every layer (hub 0, layer nodes 0, 0, 1).
solve::Problem frustrated_stack(int blocks);

// The exact solver's optimum of `problem` (bound fixing off) with or without its memory rows:
// the plain search's proven answer, for tests that compare against it.
solve::Solution plain_optimum(solve::Problem problem, bool with_memory = true);

}  // namespace dtplan::testing
