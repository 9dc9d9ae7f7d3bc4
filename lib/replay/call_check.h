#pragma once
// The data check `dtplan replay` runs on every distinct collective before timing it: the backend
// runs the call on deterministic inputs, the fake process group runs the same call on the same
// inputs in this process, and every element a held rank receives is compared with the fake's.
//
// Inputs are integer-valued (fill_input): element i of rank r is ((5r + 3i) mod 9) - 4, in the
// dtype (integers in [-4, 4]; dtypes without arithmetic get the byte pattern (31r + 7i + j) mod
// 256 in byte j of an element). Every partial sum of n such values is an integer of magnitude at
// most 4n, exact in a floating dtype with p significand bits while 4n <= 2^p (bf16: n <= 64), so
// sum, max and min match bit for bit whatever order a library reduces in; so does avg for
// power-of-two groups (the premultiplication by 1/n is exact). Otherwise a floating result may
// differ in its last bits with the order and passes within the sum of two orders' error bounds:
// 8 n^2 u for sum, 8 n u for avg (u the dtype's unit roundoff, |x| <= 4).
//
//   CallCheck c = check_call(pg, call, core::DType::kBF16, {1024}).value();
//   c.wrong_elements == 0   // over every process of the world

#include <cstdint>

#include "core/dtype.h"
#include "core/result.h"
#include "replay/replay_group.h"
#include "sim/tensor.h"

namespace dtplan::replay {

// The input of `rank` described above. Errors as sim::Tensor::uninitialized.
core::Result<sim::Tensor> fill_input(core::DType dtype, const sim::Shape& shape, std::int64_t rank);

struct CallCheck {
  std::int64_t elements = 0;        // output elements compared, summed over the world
  std::int64_t wrong_elements = 0;  // of those, the ones that differ from the fake
  bool skipped = false;             // the fake's tensors would pass max_bytes on some process
  bool operator==(const CallCheck&) const = default;
};

// Runs `call` on `pg` (every member's input fill_input(dtype, shape, rank)) and compares the held
// ranks' outputs with the fake process group's. Collective on every process of the world. The
// fake runs the groups with a held member in this process; when their inputs and outputs would
// pass `max_bytes` on any process, every process skips the check (nothing runs, skipped = true).
// Errors: the call's own (validate_call, output_shape, the backend's run), the fake's.
core::Result<CallCheck> check_call(ReplayGroup& pg, const sim::CollectiveCall& call,
                                   core::DType dtype, const sim::Shape& shape,
                                   std::int64_t max_bytes = std::int64_t{1} << 30);

}  // namespace dtplan::replay
