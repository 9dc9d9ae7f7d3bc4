#pragma once
// Async TP on a lowered plan: the tp collectives inside the transformer blocks that inductor's
// micro-pipeline TP fuses with their matmuls (docs/reference/torchtitan.md §7; PyTorch
// torch/_inductor/fx_passes/micro_pipeline_tp.py), found in the plan's ops and redistributions
// and priced as plan/fused_matmul.h prices them. A redistribution qualifies when its only
// collective step is an all_gather or a reduce_scatter on the mesh dim named "tp" alone, over
// more than one rank:
//   - fused_all_gather_matmul: the matmul ops (mm, bmm, einsum) of a layer (layer >= 0) that read
//     the gathered tensor as their left operand (slot 0), directly or through shape views (alias,
//     view, reshape, _unsafe_view) of it, and keep its dims up to the gathered one in front of
//     their output (the gathered dim is not contracted). Every tp all-gather of that tensor (the
//     same producer, tensor dim and bytes; other readers such as a weight gradient read the
//     gathered tensor the fused op returns) is absorbed;
//   - fused_matmul_reduce_scatter: a matmul op of a layer whose output, directly or through
//     shape views each read once, is read only by the reduce-scatter's slot.
// The embedding and output (layer -1) run eagerly outside the compiled blocks and are not
// fused; a sum of matmuls (the input gradient of wq/wk/wv or w1/w3) is not a matmul and its
// reduce-scatter stays an NCCL collective, as inductor's pattern requires a matmul producer.
//
//   DTPLAN_CHECK(apply_async_tp(plan, profile));  // plan.fused_matmuls, cost, collectives

#include <vector>

#include "core/result.h"
#include "cost/hardware.h"
#include "plan/plan.h"

namespace dtplan::plan {

// The fused matmuls of `plan`, priced with `profile`, in the order of their first collective.
// Errors (kBadInput): no mesh dim "tp" of size > 1; (kUnsupported): a tp group spans nodes or the
// profile's GPUs have no NVLink (symmetric-memory peer copies need both). `what` names the
// request in errors ("--async-tp").
// @pre check_plan(plan) passed.
core::Result<std::vector<FusedMatmul>> find_fused_matmuls(const Plan& plan,
                                                          const cost::HardwareProfile& profile,
                                                          std::string_view what);

// Sets training.async_tp, plan.fused_matmuls (find_fused_matmuls) and the cost and collective
// summaries (plan_summary.h); the warnings and the solver's record are kept.
core::Status apply_async_tp(Plan& plan, const cost::HardwareProfile& profile,
                            std::string_view what);

}  // namespace dtplan::plan
