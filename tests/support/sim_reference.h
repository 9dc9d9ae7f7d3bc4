#pragma once
// Naive reference implementations for the tests of lib/sim: rounding to bf16/f16 by nearest
// search over every value of the format, element arithmetic in double with one rounding per
// step, per-element reductions that follow the documented ring and tree orders directly (not
// through ReductionProgram), and whole collective calls computed rank by rank and element by
// element. Slow on purpose; only for small tensors.

#include <cstdint>
#include <random>
#include <vector>

#include "core/dtype.h"
#include "sim/collective_call.h"
#include "sim/rank_tensors.h"
#include "sim/reduction_order.h"
#include "sim/tensor.h"

namespace dtplan::testing {

// Nearest bf16 / f16 to d (ties to the even pattern; |d| at or past the largest finite value
// plus half an ulp gives infinity; NaN gives the canonical quiet NaN).
std::uint16_t ref_round_bf16(double d);
std::uint16_t ref_round_f16(double d);

// The value of an element pattern of a floating dtype (f32, f64, bf16, f16), exactly.
double ref_widen(core::DType dtype, std::uint64_t bits);

// The pattern of a floating dtype (f32, f64, bf16, f16) nearest to d (ties to even).
std::uint64_t ref_round(core::DType dtype, double d);

// Element e of a data tensor as its zero-extended bit pattern, and the inverse.
std::uint64_t element_bits(const sim::Tensor& t, std::int64_t e);
void set_element_bits(sim::Tensor& t, std::int64_t e, std::uint64_t bits);

// Random data: floating dtypes get finite values of random sign with magnitudes spread over
// 2^-10 .. 2^14 (so the summation order shows in the low bits), integer and other dtypes
// uniformly random bit patterns (sums wrap).
sim::Tensor random_tensor(core::DType dtype, const sim::Shape& shape, std::mt19937_64& rng);

// One reduction over n contributions in the dtype, step by step as reduce_engine.h documents.
struct RefArith {
  core::DType dtype;
  sim::ReduceOp op;
  std::int64_t n;
  // An input as it enters the reduction (premultiplied by 1/n for a floating avg).
  [[nodiscard]] std::uint64_t read(std::uint64_t x) const;
  // op(acc, x) rounded to the dtype.
  [[nodiscard]] std::uint64_t combine(std::uint64_t acc, std::uint64_t x) const;
  // The final value (integer avg divides by n).
  [[nodiscard]] std::uint64_t finish(std::uint64_t acc) const;
};

// The reduction of element-wise contributions `x` (by group index) in the documented ring order
// ending at ring position `end_position`, or in tree `which`'s order.
std::uint64_t ref_ring_reduce(const RefArith& arith, const sim::GroupLayout& layout,
                              std::int32_t end_position, const std::vector<std::uint64_t>& x);
std::uint64_t ref_tree_reduce(const RefArith& arith, const sim::GroupLayout& layout, int which,
                              const std::vector<std::uint64_t>& x);

// The outputs of `call` on `inputs`, computed naively; groups reduce in `orders[i]` (one per
// group). Ranks outside the call keep their tensors.
sim::RankTensors reference_run(const sim::CollectiveCall& call, const sim::RankTensors& inputs,
                               const std::vector<sim::ReductionOrder>& orders,
                               std::int64_t gpus_per_node);

// Random disjoint groups of `n` ranks each (at most `count`, all fitting in the world), every
// group a random selection in random order.
std::vector<sim::Group> random_groups(std::int64_t world, std::int64_t n, std::int64_t count,
                                      std::mt19937_64& rng);

}  // namespace dtplan::testing
