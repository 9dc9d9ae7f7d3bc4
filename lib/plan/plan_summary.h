#pragma once
// The summaries of a plan::Plan derived from its ops and redistributions, shared by the lowering
// (lib/strategy) and any reader that edits a plan:
//   - cost, per training step: compute = Σ op compute_us x its runs (a fused matmul's op: its
//     share of the fused op's time, plan/fused_matmul.h); communication = Σ collective steps
//     (all_gather, reduce_scatter, all_reduce, all_to_all) of every redistribution x its runs,
//     but those a fused matmul absorbs; redistribution = Σ local steps (local_chunk,
//     local_partition) x runs; total = their sum (nothing overlapped); runs as plan/step_runs.h
//     counts them;
//   - collectives: steps grouped by (kind, mesh dims, flattened mesh, group size), in that key
//     order, each run counted; a step on a one-rank group is skipped at runtime and not counted,
//     nor one a fused matmul absorbs (it runs as peer copies, not as an NCCL collective);
//   - warnings: every redistribution's warnings, once per (mesh dims, reason), in plan order.
//
//   summarize(plan);  // fills plan.cost, plan.collectives, plan.warnings

#include <span>
#include <vector>

#include "plan/plan.h"

namespace dtplan::plan {

CostSummary cost_summary(const Plan& plan);
std::vector<CollectiveSummary> collective_summary(const Plan& plan);
// `extra` (e.g. a lowering pass's own warnings) is appended after the redistributions'
// warnings, with the same de-duplication.
std::vector<redist::Warning> warning_summary(const Plan& plan,
                                             std::span<const redist::Warning> extra = {});

// Sets plan.cost, plan.collectives and plan.warnings (keeping `extra` warnings).
void summarize(Plan& plan, std::span<const redist::Warning> extra = {});

}  // namespace dtplan::plan
