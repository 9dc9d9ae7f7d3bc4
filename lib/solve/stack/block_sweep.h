#pragma once
// Internal to lib/solve: a memory-bound labelling improved one repeated block at a time, for an
// incumbent (the solver still proves or bounds it).
//
// For each block of each repeat group in order: every node outside the block is fixed at its
// label, which turns the edges leaving the block into unary costs and the fixed nodes' bytes into
// constants taken off the rows' bounds; the block alone, with those rows, is solved exactly by
// the caller's `solve` and its optimum replaces the block's labels where it costs less. A
// labelling whose rows hold with room to spare in bytes (the Lagrangian's mixes of whole layer
// plans leave up to a layer's bytes unused under the budget) can spend that room in one block or
// a few. Blocks whose problem equals one already solved (alike layers with alike neighbours: most
// of a deep stack) reuse its optimum. The labels never cost more and always meet the rows; one
// pass, in block order, then stop (or once `enough` says the cost is good enough, or at the
// deadline). Deterministic for a deterministic `solve`.
//
// Example: LLaMA3-70B, 80 layers, on 128x2x4 under 80 GiB: the incumbent leaves 346 MB under the
// budget; re-solving layers 0 to 3 spends it (126 us cheaper), the other 76 layers reuse one
// optimum, and the plan is within 0.01% of the Lagrangian bound.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "solve/problem.h"

namespace dtplan::solve::detail {

struct BlockSweepStats {
  std::int32_t solved = 0;  // block problems solved
  std::int32_t reused = 0;  // blocks whose problem equalled one solved before
  double gain_us = 0;       // what the sweep took off the labelling's cost
};

// The exact optimum of a block's problem (its labels), or nullopt where none was found.
using BlockSolve = std::function<std::optional<std::vector<LabelIndex>>(const Problem&)>;

// The block problem of `block` with every other node fixed at `labels` (exposed for tests).
// @pre problem has no pins or followers (simplified).
Problem block_problem(const Problem& problem, const std::vector<NodeIndex>& block,
                      const std::vector<LabelIndex>& labels);

// `labels` improved block by block (see above); `enough(cost)` ends the sweep early.
// @pre problem has no pins or followers; labels meets every constraint of problem.
std::vector<LabelIndex> sweep_blocks(const Problem& problem, std::vector<LabelIndex> labels,
                                     const BlockSolve& solve,
                                     const std::function<bool(double)>& enough,
                                     std::chrono::steady_clock::time_point deadline,
                                     BlockSweepStats& stats);

}  // namespace dtplan::solve::detail
