#pragma once
// Internal to lib/solve: solving repeated layers once (docs/reference/strategy_selection.md §1.7;
// docs/solver.md item 2).
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
// the result equals the optimum of the unrolled problem. A first or last block unlike the rest
// (after simplify(), one unary of LLaMA3-70B's last block differs) is left out of the group where
// that plans less work: it joins the global problem as ordinary nodes, instead of making its
// unlike position a port of every block (on 4x256, a 10M-entry transfer function, not 0.5M).
//
// Example: 32 identical layers of 300 nodes with 2 ports each eliminate 298 nodes once instead of
// 32 times; the global problem has 64 ports plus the prologue and epilogue.

#include <cstdint>
#include <memory>
#include <vector>

#include "core/result.h"
#include "solve/engine/elimination.h"
#include "solve/engine/model.h"
#include "solve/engine/search.h"
#include "solve/problem.h"

namespace dtplan::solve::detail {

// Which positions of a repeat group are interior, and the order eliminating them: decided once
// per problem (from the memory-aware problem) and shared by every variant solved (relaxed,
// Lagrangian, filtered), so their factor numbering agrees.
struct GroupShape {
  std::vector<std::vector<NodeIndex>> blocks;  // [block][position] -> node
  std::vector<char> interior;                  // per position
  std::vector<std::int32_t> order;             // interior positions, in elimination order
};

// The groups worth decomposing: with interior positions whose elimination keeps every message
// within options.max_table_entries.
std::vector<GroupShape> analyse_repeats(const std::vector<RepeatGroup>& repeats,
                                        const EngineProblem& full, const EngineOptions& options);

struct GroupPlan {
  const GroupShape* shape = nullptr;
  Elimination sub;                                // block 0's interior, eliminated once
  std::vector<std::int32_t> residual;             // sub factors left over (scopes: port positions)
  std::vector<std::vector<std::int32_t>> copies;  // [block][k]: global factor of residual[k]
};

struct Decomposition {
  EngineProblem global;  // interior nodes appear in no factor
  std::vector<GroupPlan> groups;
  bool complete = true;  // false when a sub-elimination hit a limit
  RunStatus stop = RunStatus::kComplete;
  std::int64_t blocks = 0;          // blocks solved through a shared interior
  std::int64_t interior_nodes = 0;  // Σ interior positions × blocks
};

// Splits `problem` (any variant with the factor structure the shapes were analysed on). With
// `sub_outside` (per shape), the sub-eliminations use those outside tables (window filter);
// `retain` is what they keep (Retain::kMessages where outside_tables() will be asked of them).
Decomposition decompose(const std::vector<GroupShape>& shapes, const EngineProblem& problem,
                        const EngineOptions& options,
                        const std::vector<std::shared_ptr<const Outside>>* sub_outside = nullptr,
                        Retain retain = Retain::kArgmins);

// Fills in the interior labels of every block of a found solution of `d.global`.
core::Status decode_blocks(const Decomposition& d, EngineSolution& solution);

}  // namespace dtplan::solve::detail
