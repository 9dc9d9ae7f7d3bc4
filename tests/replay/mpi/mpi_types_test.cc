// Runs in dtplan_mpi_tests. The bf16/f16 user ops checked one element pair at a time through
// MPI_Reduce_local (no other process needed) against the reference arithmetic of sim's tests:
// widen, operate in f32, round to nearest even; max/min ignore a NaN operand.
#include "replay/mpi/mpi_types.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "mpi_test_env.h"
#include "replay/mpi/mpi_environment.h"
#include "sim/half_float.h"

namespace dtplan::replay {
namespace {

using core::DType;
using placement::ReduceOp;

float widen(DType d, std::uint16_t h) {
  return d == DType::kBF16 ? sim::bf16_to_f32(h) : sim::f16_to_f32(h);
}
std::uint16_t narrow(DType d, float f) {
  return d == DType::kBF16 ? sim::f32_to_bf16(f) : sim::f32_to_f16(f);
}

// inout = op(in, inout) as the reduce engine computes op(lhs, rhs) (reduce_kernels.h).
std::uint16_t expected(DType d, ReduceOp op, std::uint16_t in, std::uint16_t inout) {
  const float a = widen(d, in), b = widen(d, inout);
  switch (op) {
    case ReduceOp::kMax:  // the chosen operand, widened and narrowed again (f16 quiets a NaN)
      return narrow(d, (b > a || std::isnan(a)) ? b : a);
    case ReduceOp::kMin:
      return narrow(d, (b < a || std::isnan(a)) ? b : a);
    default:
      return narrow(d, a + b);
  }
}

TEST_CASE("mpi types: bf16 and f16 ops equal the reference arithmetic") {
  auto env = testing::mpi_env();
  auto ops = MpiHalfOps::create().value();
  std::mt19937_64 rng(2024);
  for (DType d : {DType::kBF16, DType::kF16}) {
    for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kMin}) {
      const MpiReduction r = mpi_reduction(d, op, ops);
      CHECK(r.datatype == MPI_UINT16_T);
      // 5000 elements in one call (the engine's 8 KiB blocks are crossed) of random patterns
      // (NaNs, infinities and subnormals included).
      std::vector<std::uint16_t> in(5000), inout(5000), want(5000);
      for (std::size_t i = 0; i < in.size(); ++i) {
        in[i] = static_cast<std::uint16_t>(rng());
        inout[i] = static_cast<std::uint16_t>(rng());
        want[i] = expected(d, op, in[i], inout[i]);
      }
      REQUIRE(MPI_Reduce_local(in.data(), inout.data(), static_cast<int>(in.size()), r.datatype,
                               r.op) == MPI_SUCCESS);
      int wrong = 0;
      for (std::size_t i = 0; i < in.size(); ++i) {
        const bool both_nan = std::isnan(widen(d, inout[i])) && std::isnan(widen(d, want[i]));
        if (inout[i] != want[i] && !(op == ReduceOp::kSum && both_nan)) ++wrong;
      }
      CHECK_MESSAGE(wrong == 0, core::dtype_name(d), " op ", placement::reduce_op_name(op));
    }
  }
  // Worked example: bf16 1 + 2^-8 rounds to even (1), f16 65504 + 16 overflows to infinity.
  std::uint16_t a = 0x3f80, b = 0x3b80;  // 1, 2^-8
  MPI_Reduce_local(&b, &a, 1, MPI_UINT16_T, ops.op(DType::kBF16, ReduceOp::kSum));
  CHECK(a == 0x3f80);
  std::uint16_t c = 0x7bff, e = 0x4c00;  // 65504, 16
  MPI_Reduce_local(&e, &c, 1, MPI_UINT16_T, ops.op(DType::kF16, ReduceOp::kSum));
  CHECK(c == 0x7c00);
}

TEST_CASE("mpi types: native types and movement") {
  auto env = testing::mpi_env();
  auto ops = MpiHalfOps::create().value();
  CHECK(mpi_reduction(DType::kF32, ReduceOp::kAvg, ops).op == MPI_SUM);  // avg: the caller scales
  CHECK(mpi_reduction(DType::kI64, ReduceOp::kMax, ops).datatype == MPI_INT64_T);
  CHECK(movement_datatype(DType::kU8) == MPI_UINT8_T);
  CHECK(movement_datatype(DType::kC64) == MPI_UINT64_T);
  CHECK(movement_datatype(DType::kBF16) == MPI_UINT16_T);
}

}  // namespace
}  // namespace dtplan::replay
