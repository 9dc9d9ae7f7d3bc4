#pragma once
// Internal to lib/solve: solving repeated layers once (reference §1.7, Appendix A.2).
//
// For a RepeatGroup, a position is interior when, in every block, its node touches only nodes of
// the same block, and its factors (unary, memory, edges, mapped to positions) are identical in
// every block. The other positions are the block's ports. The interior of block 0 is eliminated
// once; what remains is the layer's transfer function: min-plus tables over port labels (with
// Pareto points when memory rows are present). Every block then contributes a copy of those tables
// (shared data, scopes renamed to its own ports), and the global problem -- ports, the nodes
// outside all blocks and the copies -- is solved by the same engine, whose elimination along the
// chain of layers is the sequence of min-plus products. Unlike AutoParallel's clustering, which
// forces every layer to take the root layer's choice, this is exact: each layer may differ, and
// the result equals the optimum of the unrolled problem.
//
// Example: 32 identical layers of 300 nodes with 2 ports each eliminate 298 nodes once instead of
// 32 times; the global problem has 64 ports plus the prologue and epilogue.

#include <cstdint>
#include <vector>

#include "core/result.h"
#include "solve/elimination.h"
#include "solve/model.h"
#include "solve/problem.h"
#include "solve/search.h"

namespace dtplan::solve::detail {

struct GroupPlan {
  std::vector<std::vector<NodeIndex>> blocks;  // [block][position] -> node
  std::vector<char> interior;                  // per position
  Elimination sub;                             // block 0's interior, eliminated once
  std::vector<std::int32_t> residual;          // sub factors left over (scopes: port positions)
  std::vector<std::vector<std::int32_t>> copies;  // [block][k]: global factor of residual[k]
};

struct Decomposition {
  EngineProblem global;  // interior nodes appear in no factor
  std::vector<GroupPlan> groups;
  std::int64_t blocks = 0;          // blocks solved through a shared interior
  std::int64_t interior_nodes = 0;  // Σ interior positions × blocks
};

// Splits `full` along `repeats` (the problem's repeat groups). Groups without interior positions,
// or whose interior needs a message above options.max_table_entries, stay unrolled.
Decomposition decompose(const std::vector<RepeatGroup>& repeats, const EngineProblem& full,
                        const EngineOptions& options);

// Fills in the interior labels of every block of a found solution of `d.global`.
core::Status decode_blocks(const Decomposition& d, EngineSolution& solution);

}  // namespace dtplan::solve::detail
