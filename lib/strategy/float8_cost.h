#pragma once
// What a float8 linear (torchao, docs/reference/torchtitan.md §6) adds to the compute cost of its
// einsums, the ones the llama3 builder tags {"float8": true} (graph/llama3_builder.h):
//   - the GEMM runs at the fp8 dense peak (profile peak "f8e4m3") and reads its operands in fp8
//     (1 byte per element); compute_cost_us applies this;
//   - each operand not already fp8 is cast to fp8 first, with a dynamic scale: an amax reduction
//     reads it, the cast reads it again and writes 1 byte per element, a memory-bound kernel
//     priced by the roofline's bytes term (at least one launch floor). torchao casts every
//     operand of each of the three GEMMs (Y, dX, dW) from the high-precision tensors it keeps, so
//     a tensorwise weight, already fp8 from its dtype_cast, is the one operand not cast again;
//   - compiled blocks fuse the casts into the neighbouring pointwise kernels
//     (docs/reference/torchtitan.md §7): the fused cast only writes its fp8 output (its reads share
//     the producer's, no launch of its own), and, as for every fused op, kCompiledFusionShare of
//     the saving is realized.
//
//   layers.0.attention.wq.einsum, local x bf16 [1,8192,4096], w fp8 [4096,4096], eager, h100-dgx:
//   the cast of x moves 5 x 2^25 bytes -> 167772160 / (3.35e12 x 0.7) = 71.5 µs.

#include <cstdint>
#include <span>

#include "core/dtype.h"
#include "core/result.h"
#include "core/training.h"
#include "cost/hardware.h"
#include "graph/node.h"

namespace dtplan::strategy {

// Whether `node` is a float8 linear's GEMM (an einsum with {"float8": true}).
bool is_float8_gemm(const graph::Node& node);

// HBM bytes per element of one eager dynamic-scale cast of a `src` tensor to fp8: 2 x its bytes
// (the amax read, the cast read) + 1 (the fp8 write). Example: bf16 -> 5. 0 for a 1-byte dtype
// (already fp8: nothing to cast).
std::int64_t float8_cast_bytes_per_element(core::DType src);

// The time in µs of casting the operands of a float8 GEMM (local shapes `local_inputs`, dtypes
// from `inputs`) to fp8 under `execution` (above).
// @pre local_inputs.size() == inputs.size().
// @post >= 0; 0 when every operand is already 1 byte per element.
core::Result<double> float8_cast_us(std::span<const graph::TensorMeta> inputs,
                                    std::span<const graph::Shape> local_inputs,
                                    const cost::HardwareProfile& profile,
                                    core::Execution execution);

}  // namespace dtplan::strategy
