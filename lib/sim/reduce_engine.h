#pragma once
// The reduction engine: runs reduction programs (reduction_program.h) over a group's input
// buffers with element arithmetic exactly as NCCL's kernels do it. The dtype, op and instruction
// set are dispatched once per call; each program step is then a tight typed loop over a block of
// elements (8 KiB), so the scratch registers stay in the L1 cache while the inputs stream, and
// runs of steps that add inputs to one register are fused into one pass (up to 4 inputs).
//
// Arithmetic (per step, in the order the program gives):
//   f32, f64: IEEE operations in that type.
//   bf16, f16: widen both operands to f32, operate, round to nearest even (half_float.h).
//   i32, i64: two's-complement wrap-around sum; max/min.
//   sum; max/min ignore a NaN operand (fmax/fmin, as NCCL's FuncMax/FuncMin).
//   avg: floating types premultiply every input by 1/n (computed in double, rounded to the
//     dtype), the product also rounded to the dtype, then sum (NCCL's ncclAvg is PreMulSum for
//     floats); integer types sum and divide the result by n, truncating toward zero (NCCL's
//     SumPostDiv).
//   c64: a pair of f32 (real, imaginary), reduced as two f32 elements (PyTorch reduces a complex
//     tensor through view_as_real): sum and avg only; max and min are refused (reducible_by).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>

#include "core/dtype.h"
#include "core/result.h"
#include "placement/placement.h"
#include "sim/reduction_program.h"

namespace dtplan::sim {

using ReduceOp = placement::ReduceOp;

// Block size of the engine's loops in bytes.
inline constexpr std::int64_t kReduceBlockBytes = 8192;

// True for the dtypes reductions support: f32, bf16, f16, f64, i32, i64, c64 (sum and avg).
bool reducible(core::DType dtype);

// True when `op` reduces `dtype`: reducible(dtype), and for complex dtypes only sum and avg.
bool reducible_by(core::DType dtype, ReduceOp op);

// Why `op` cannot reduce `dtype` (kUnsupported, message prefixed with `context`), or ok.
//   "all_reduce(max) ...: dtype c64 cannot be reduced by max (complex dtypes: sum and avg)"
core::Status check_reducible(core::DType dtype, ReduceOp op, std::string_view context);

// The real dtype a reduction of `dtype` runs in and how many of its elements make one element
// of `dtype`: c64 -> {f32, 2}; every other dtype -> {itself, 1}. Reductions of a complex tensor
// run on its real view: counts and offsets in the real elements.
struct RealView {
  core::DType dtype = core::DType::kF32;
  std::int64_t lanes = 1;
};
RealView real_view(core::DType dtype);

// Which loops run: the fastest the CPU has (on x86-64 with AVX2 and F16C, loops compiled for
// them) or the baseline ones. Both produce identical bits; the tests compare them.
enum class ReduceIsa : std::uint8_t { kBest, kBaseline };

// Receives each finished block: the segment it belongs to, the element offset of the block in
// the input buffers, the reduced elements (valid until the sink returns) and their count.
using BlockSink = std::function<void(const ReductionSegment& segment, std::int64_t offset,
                                     const std::byte* data, std::int64_t count)>;

// Reduces every segment over `inputs` (one pointer per group index, each to a buffer covering
// all segments) and hands the results to `sink` block by block, in segment order. The sink may
// write the block's positions of the inputs (in-place all_reduce): each block is read completely
// before its sink call, and later blocks read other positions.
// @pre reducible(dtype) and dtype is real (real_view(dtype).lanes == 1); inputs.size() >= 1; every
// program indexes inputs and registers in range.
void run_reduction(core::DType dtype, ReduceOp op, std::span<const ReductionSegment> segments,
                   std::span<const std::byte* const> inputs, const BlockSink& sink,
                   ReduceIsa isa = ReduceIsa::kBest);

}  // namespace dtplan::sim
