#pragma once
// Internal to lib/solve: a 64-bit digest of a problem (node names aside), to find sub-problems
// (repeated blocks) equal to one solved before. Users must stay correct on a collision (it may
// only cost them a missed improvement or a weaker bound, never a wrong answer).

#include <cstdint>
#include <map>

#include "solve/problem.h"

namespace dtplan::solve::detail {

// The digest of q's unary costs, edges (ends and matrices) and memory rows; repeats and pins are
// not read. `matrices` caches each matrix's digest by the address of its values, so that matrices
// shared between blocks (matrix.h) are read once per caller.
std::uint64_t problem_digest(const Problem& q, std::map<const double*, std::uint64_t>& matrices);

}  // namespace dtplan::solve::detail
