#pragma once
// fuse_chained_allgathers(): AutoParallel's fuse_chained_allgathers pass (PR #472, refined by
// #467; docs/reference/strategy_selection.md §4.3) on a lowered plan. Two redistributions form a
// chain when
//   - R1 feeds input 0 of op q1 and its last step is an all_gather on mesh dims D1;
//   - q1 .. qk (k >= 1) are view-only ops (alias, view, reshape, _unsafe_view, permute,
//     transpose, t, expand, squeeze, unsqueeze) with one input each, each read by exactly one
//     input slot in the whole plan (qi by q(i+1), qk by R2's consumer), and no redistribution
//     between them;
//   - the chain is the identity on the tensor: its permutations compose to the identity and
//     every other view keeps the shape (#472 condition 4), so R2's source placements are R1's
//     target placements;
//   - R2 (on qk's single use) starts with an all_gather on mesh dims D2, disjoint from D1, of the
//     same tensor dim.
// The pair fuses into one all_gather on the flattened mesh over D1 ∪ D2: R1 is re-planned to
// R1's target with D2 also gathered (the planner's merge pass then runs both gathers as one
// flattened step), R2 is re-planned from there (and dropped when nothing is left), and the
// chain ops carry Replicate on D2. A chain whose re-planned R1 would not merge (no flattened
// mesh over D1 ∪ D2) is left as it is, with a no_flattened_mesh warning naming both dims.
// The plan's summaries (plan_summary.h) are recomputed. Chains are taken in (consumer, slot)
// order of R2.
//
//   FuseResult r = fuse_chained_allgathers(plan, graph, coster).value();
//   r.fused  // chains fused; plan.warnings lists the chains that could not be

#include <cstdint>
#include <vector>

#include "core/result.h"
#include "graph/graph.h"
#include "plan/plan.h"
#include "redist/warnings.h"
#include "strategy/edge_cost.h"

namespace dtplan::strategy {

struct FuseResult {
  std::int64_t fused = 0;
  std::vector<redist::Warning> warnings;  // chains left unfused, once per (dims, reason)
};

// @pre plan was lowered from `graph` (ops named as its nodes) on coster's mesh.
// @post the plan still passes plan::check_plan; errors only from re-planning (kBadInput).
core::Result<FuseResult> fuse_chained_allgathers(plan::Plan& plan, const graph::Graph& graph,
                                                 EdgeCoster& coster);

}  // namespace dtplan::strategy
