#include "replay/mpi/mpi_types.h"

#include <cassert>
#include <cstring>

#include "replay/mpi/mpi_environment.h"
#include "sim/reduce_engine.h"

namespace dtplan::replay {

namespace {

using core::DType;
using placement::ReduceOp;

// inout[i] = op(in[i], inout[i]) through the reduce engine: a two-input program, one segment.
template <DType kDType, ReduceOp kOp>
void half_reduce(void* in, void* inout, int* len, MPI_Datatype* /*datatype*/) {
  sim::ReductionSegment segment;
  segment.begin = 0;
  segment.end = *len;
  segment.program.steps = {{0, {true, 0}, {true, 1}}};
  segment.program.registers = 1;
  segment.program.result = {false, 0};
  auto* out = static_cast<std::byte*>(inout);
  const std::byte* inputs[2] = {static_cast<const std::byte*>(in), out};
  sim::run_reduction(kDType, kOp, std::span<const sim::ReductionSegment>(&segment, 1), inputs,
                     [out](const sim::ReductionSegment&, std::int64_t offset, const std::byte* data,
                           std::int64_t count) {
                       std::memcpy(out + offset * 2, data, static_cast<std::size_t>(count) * 2);
                     });
}

constexpr MPI_User_function* kHalfFunctions[6] = {
    half_reduce<DType::kBF16, ReduceOp::kSum>, half_reduce<DType::kBF16, ReduceOp::kMax>,
    half_reduce<DType::kBF16, ReduceOp::kMin>, half_reduce<DType::kF16, ReduceOp::kSum>,
    half_reduce<DType::kF16, ReduceOp::kMax>,  half_reduce<DType::kF16, ReduceOp::kMin>,
};

std::size_t half_index(DType dtype, ReduceOp op) {
  assert(dtype == DType::kBF16 || dtype == DType::kF16);
  assert(op == ReduceOp::kSum || op == ReduceOp::kMax || op == ReduceOp::kMin);
  const std::size_t base = dtype == DType::kBF16 ? 0 : 3;
  return base + (op == ReduceOp::kSum ? 0 : op == ReduceOp::kMax ? 1 : 2);
}

MPI_Op native_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      return MPI_SUM;
    case ReduceOp::kMax:
      return MPI_MAX;
    case ReduceOp::kMin:
      return MPI_MIN;
  }
  return MPI_SUM;
}

}  // namespace

MPI_Datatype movement_datatype(core::DType dtype) {
  switch (core::dtype_bytes(dtype)) {
    case 1:
      return MPI_UINT8_T;
    case 2:
      return MPI_UINT16_T;
    case 4:
      return MPI_UINT32_T;
    default:
      assert(core::dtype_bytes(dtype) == 8);
      return MPI_UINT64_T;
  }
}

core::Result<MpiHalfOps> MpiHalfOps::create() {
  MpiHalfOps ops;
  for (std::size_t i = 0; i < ops.ops_.size(); ++i) {
    DTPLAN_CHECK(mpi_status(MPI_Op_create(kHalfFunctions[i], 1, &ops.ops_[i]), "MPI_Op_create"));
  }
  return ops;
}

MpiHalfOps::MpiHalfOps(MpiHalfOps&& other) noexcept : ops_(other.ops_) {
  other.ops_.fill(MPI_OP_NULL);
}

MpiHalfOps::~MpiHalfOps() {
  for (MPI_Op& op : ops_) {
    if (op != MPI_OP_NULL) MPI_Op_free(&op);
  }
}

MPI_Op MpiHalfOps::op(core::DType dtype, placement::ReduceOp op) const {
  return ops_[half_index(dtype, op == ReduceOp::kAvg ? ReduceOp::kSum : op)];
}

MpiReduction mpi_reduction(core::DType dtype, placement::ReduceOp op, const MpiHalfOps& half_ops) {
  switch (dtype) {
    case DType::kF32:
    case DType::kC64:  // pairs of f32 (sum and avg only: sim::reducible_by)
      return {MPI_FLOAT, native_op(op)};
    case DType::kF64:
      return {MPI_DOUBLE, native_op(op)};
    case DType::kI32:
      return {MPI_INT32_T, native_op(op)};
    case DType::kI64:
      return {MPI_INT64_T, native_op(op)};
    case DType::kBF16:
    case DType::kF16:
      return {MPI_UINT16_T, half_ops.op(dtype, op)};
    default:
      assert(false && "mpi_reduction: dtype is not reducible");
      return {};
  }
}

}  // namespace dtplan::replay
