#pragma once
// Element-wise division of a local tensor by a group size, as the redistribution executor needs
// it (docs/reference/placements.md §2 rows 1, 2, 7; §4.3 step 6): Replicate -> Partial(sum) divides
// every rank's copy by the group size n, and a merged sum+avg reduction divides its sum by
// avg_scale. The arithmetic is PyTorch's `tensor / n` on the tensor's dtype:
//   f32, f64: one IEEE division (correctly rounded; exact when the quotient is representable);
//   bf16, f16: widen to f32, divide, round to nearest even (half_float.h), as the GPU does;
//   integer types: kUnsupported (PyTorch's true division would turn them into floats, so the
//     redistribution would change the dtype).
// A shape-only tensor stays shape-only (cost-only mode).
//
//   divide(f32 [3] {3, 6, 9}, 3) == {1, 2, 3}
//   divide(bf16 [1] {1}, 3) == bf16(0.333984375)   (1/3 rounded to 8 significant bits)

#include <cstdint>

#include "core/result.h"
#include "sim/tensor.h"

namespace dtplan::sim {

// Divides every element by n, in place. Errors: n < 1 (kBadInput); a dtype other than f32, f64,
// bf16 and f16 (kUnsupported), both naming the tensor. n == 1 leaves the tensor unchanged.
core::Status divide(Tensor& t, std::int64_t n);

}  // namespace dtplan::sim
