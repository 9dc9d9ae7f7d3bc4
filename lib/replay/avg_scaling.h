#pragma once
// NCCL's average for backends whose library has no average (MPI): the reduce engine's documented
// arithmetic (sim/reduce_engine.h), split into a local step before a plain sum and one after it.
//   floating dtypes (f32, f64, bf16, f16; c64 as pairs of f32): every member premultiplies its
//   input by 1/n (ncclAvg
//     is PreMulSum): the scale is 1/n computed in double, rounded to the compute type (f32 for
//     the 16-bit types) and then to the dtype; each product is rounded to the dtype. The sum of
//     the premultiplied inputs is the average.
//   integer dtypes (i32, i64): the plain (wrapping) sum, divided by n truncating toward zero
//     (NCCL's SumPostDiv).
// With the same summation order the result is bit-identical to the fake process group's avg;
// only the order of the sum differs between libraries.
//
//   premultiplied(f32 [3, 5], 4) == [0.75, 1.25];   i32 sum [-7] divide_in_place(.., 2) -> [-3]

#include <cstdint>

#include "core/result.h"
#include "sim/tensor.h"

namespace dtplan::replay {

// True when avg premultiplies (floating dtypes, c64); false when it divides the sum (i32, i64).
bool avg_premultiplies(core::DType dtype);

// A copy of `input` with every element multiplied by 1/n as above.
// @pre input has data, avg_premultiplies(input.dtype()), n >= 1.
// @post error only when the copy cannot be allocated.
core::Result<sim::Tensor> premultiplied(const sim::Tensor& input, std::int64_t n);

// Divides every element by n, truncating toward zero. @pre i32 or i64 with data, n >= 1.
void divide_in_place(sim::Tensor& sum, std::int64_t n);

}  // namespace dtplan::replay
