#pragma once
// The compute cost of one strategy on one GPU (docs/reference/strategy_selection.md §3.1), on the
// local shapes the strategy gives each rank (mesh coordinate 0, the largest torch.chunk piece; a
// Partial input keeps its full size):
//   - free (0 µs): leaves, aliases, view-likes (view, reshape, _unsafe_view, permute, expand,
//     ...), getitem and split (views of their input), the output node
//     (docs/reference/strategy_selection.md §3.1 rule 1; dtplan also counts reshape and
//     _unsafe_view as views, which move no data);
//   - otherwise the roofline max(flops / (peak[dtype] x eff), bytes / (HBM x eff), launch floor)
//     (cost/roofline.h; eff is the kernel's: the GEMM table for mm/addmm/bmm and two-operand
//     einsums, the attention tables for SDPA, each by its shape, when the profile has them), with
//     bytes = every input slot's local bytes (a tensor read through two slots counts twice) + every
//     output's, in their true dtypes, and flops from cost/compute_work.h: mm/addmm 2mnk, bmm 2bmnk,
//     einsum 2 x (product of every label's size) (a one-operand einsum: a sum or a permutation),
//     SDPA forward and backward (every (q, k) pair, as FlopCounterMode, unless
//     causal_attention_flops or the profile has an attention table, whose kernels skip masked
//     pairs); 0 for every other op. The peak is that of the first input's dtype (the output's for
//     ops without inputs).
//   - a float8 linear's einsum (float8_cost.h) takes the fp8 peak, reads its operands at 1 byte
//     per element, and adds the time of casting them to fp8.
//
//   - in a fused region of a compiled block (graph/fusion.h, `fusion`), the fused cost leaves out
//     the slots and outputs internal to the region, and only the region's first op pays the
//     launch floor (the others cost max(flops term, bytes term)); the op then costs
//     eager - kCompiledFusionShare x (eager - fused).
//
//   wq forward einsum, local x [2,8192,4096] x w [4096,512] bf16 on h100-dgx: 2^36 FLOPs at the
//   GEMM table's 0.689 -> 100.86 µs (AutoParallel's flat 0.7: 99.3 µs at 989 TFLOPS).

#include <span>

#include "core/result.h"
#include "cost/hardware.h"
#include "graph/fusion.h"
#include "graph/node.h"
#include "strategy/enumerate.h"
#include "strategy/strategy.h"

namespace dtplan::strategy {

// The share of the savings of the fused-region model (graph/fusion.h) that torch.compile
// realizes: fitted on the one published pair of eager and compiled runs the project calibrates
// on (LLaMA3.1-8B, FSDP 8, H100 96 GB 500 W: 5,762 and 6,667 tokens/s/GPU; docs/model.md,
// section 8). The region model is an upper bound (inductor splits regions, its generated kernels
// reach less bandwidth than the roofline's), so the share is below 1.
inline constexpr double kCompiledFusionShare = 0.5;

// Whether `rule` applied to `node` is free (the first bullet above).
bool is_free_op(const graph::Node& node, Rule rule);

// The roofline time in µs of `node` on local input shapes `local_inputs` (one per slot, dtypes
// from `inputs`) and local output shapes `local_outputs` (dtypes from node.outputs).
// @pre local_inputs.size() == inputs.size(), local_outputs.size() == node.outputs.size().
// @post error (kUnsupported) when the op has FLOPs and the profile no peak for its dtype;
//   (kBadInput) when a byte count overflows.
core::Result<double> compute_cost_us(const graph::Node& node, Rule rule,
                                     std::span<const graph::TensorMeta> inputs,
                                     std::span<const graph::Shape> local_inputs,
                                     std::span<const graph::Shape> local_outputs,
                                     const cost::HardwareProfile& profile,
                                     const EnumerateOptions& options,
                                     const graph::FusedOp& fusion = {});

}  // namespace dtplan::strategy
