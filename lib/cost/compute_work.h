#pragma once
// FLOP and HBM-byte formulas of ops, as functions of shapes and dtype, for the roofline
// (roofline.h). FLOPs follow torch.utils.flop_counter (docs/reference/collectives.md §4.3): a
// multiply-add counts 2; memory-bound ops (pointwise, reductions, norms, copies) count 0 FLOPs
// and are priced by their traffic. Bytes count every input read and every output written once
// (perfect on-chip reuse inside a kernel), in the op's dtype; softmax statistics are fp32.
// All sizes come from input, so arithmetic is checked; errors (kBadInput) name the op and value.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/result.h"
#include "cost/roofline.h"

namespace dtplan::cost {

enum class Pass : std::uint8_t { kForward, kBackward };

// mm [m,k] x [k,n]. Forward: 2mnk FLOPs, (mk + kn + mn) elements. Backward (grad of both
// inputs): 4mnk FLOPs, 2(mk + kn + mn) elements. Example: matmul_work(2, 3, 4, f32, fwd) ==
// {48, 104}.
core::Result<Work> matmul_work(std::int64_t m, std::int64_t n, std::int64_t k, core::DType dtype,
                               Pass pass);

// bmm [b,m,k] x [b,k,n]: b times matmul_work.
core::Result<Work> bmm_work(std::int64_t b, std::int64_t m, std::int64_t n, std::int64_t k,
                            core::DType dtype, Pass pass);

// einsum with one or two operands, letters a-z/A-Z, no ellipsis ("bsd,dh->bsh"). Two operands:
// forward 2 x (product of every distinct letter's size) FLOPs (the bmm it lowers to); backward
// twice that. One operand: a sum over the dropped letters (numel FLOPs when any letter is
// dropped, else a permutation with 0). Bytes: operands + output (backward: doubled).
// Example: einsum_work("bsd,dh->bsh", {{2,8192,4096},{4096,512}}, bf16, fwd).flops == 2^36.
core::Result<Work> einsum_work(std::string_view equation,
                               std::span<const std::vector<std::int64_t>> shapes, core::DType dtype,
                               Pass pass);

struct AttentionShape {
  std::int64_t batch = 1;
  std::int64_t heads = 1;
  std::int64_t q_len = 1;
  std::int64_t kv_len = 1;
  std::int64_t head_dim = 1;   // d of queries and keys
  std::int64_t value_dim = 1;  // d of values
  bool operator==(const AttentionShape&) const = default;
};

// kNone counts every (query, key) pair like FlopCounter; kCausal counts only the pairs an
// is_causal mask keeps (PyTorch's top-left aligned tril), which fused kernels skip.
enum class AttentionMask : std::uint8_t { kNone, kCausal };

// scaled_dot_product_attention. Forward: 2·b·h·pairs·(d + dv) FLOPs; reads q, k, v, writes the
// output and the fp32 logsumexp. Backward: 2·b·h·pairs·(3d + 2dv) FLOPs (2.5x forward when
// d == dv); reads q, k, v, out, dout, logsumexp, writes dq, dk, dv.
core::Result<Work> sdpa_work(const AttentionShape& shape, core::DType dtype, AttentionMask mask,
                             Pass pass);

// Elementwise op: reads every input (numel each, broadcast inputs smaller), writes the output.
core::Result<Work> pointwise_work(std::span<const std::int64_t> input_numels,
                                  std::int64_t output_numel, core::DType dtype);

// Reduction (sum/mean/max/... over some dims): reads the input, writes the output.
core::Result<Work> reduction_work(std::int64_t input_numel, std::int64_t output_numel,
                                  core::DType dtype);

enum class NormKind : std::uint8_t { kLayerNorm, kRmsNorm };

// Norm over the last dim of a [rows, cols] view. Forward reads x and the weight (and bias),
// writes y and the fp32 statistics (mean+rstd, or rstd); backward reads dy, x, weight and the
// statistics, writes dx and the weight (and bias) gradients.
core::Result<Work> norm_work(std::int64_t rows, std::int64_t cols, core::DType dtype, NormKind kind,
                             Pass pass);

// A copy (contiguous, cast to the same dtype): reads and writes numel elements.
core::Result<Work> copy_work(std::int64_t numel, core::DType dtype);

// Local steps of redistributions; all are memory traffic (read input, write output), never free:
//   kChunkCopy: make a torch.chunk slice contiguous (input = output = the chunk);
//   kPad / kUnpad: pad an uneven shard to the common size / narrow it back;
//   kReorderAfterGather: move the gathered dim into place after an all_gather on a non-leading
//     dim (input = output = the gathered tensor);
//   kPartialScale: Replicate -> Partial(sum) divides the local value by the group size.
enum class LocalOp : std::uint8_t { kChunkCopy, kPad, kUnpad, kReorderAfterGather, kPartialScale };

// "chunk_copy", "pad", "unpad", "reorder_after_gather", "partial_scale".
std::string_view local_op_name(LocalOp op);

// Example: local_op_work(LocalOp::kPartialScale, 1024, 1024) == {0, 2048}.
core::Result<Work> local_op_work(LocalOp op, std::int64_t input_bytes, std::int64_t output_bytes);

// The roofline time of a local op (memory traffic, at least the launch floor).
// Example (h100-dgx): local_op_cost(kChunkCopy, 1 << 30, 1 << 30, h100).time_us ~= 915.8.
core::Result<ComputeCost> local_op_cost(LocalOp op, std::int64_t input_bytes,
                                        std::int64_t output_bytes, const HardwareProfile& profile);

}  // namespace dtplan::cost
