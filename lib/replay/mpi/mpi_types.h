#pragma once
// How tensors travel through MPI: the datatype of each dtype and the reduction op of each
// (dtype, op). Bytes that are only moved go as unsigned integers of the element's width, so every
// dtype moves bit for bit. Reductions use MPI's own types and ops for f32, f64, i32 and i64
// (MPI_SUM, MPI_MAX, MPI_MIN), c64 as pairs of f32 (sum only); bf16 and f16, which MPI lacks, use
// user-defined commutative ops on 16-bit words that run the reduce engine's arithmetic
// (sim/reduce_engine.h: widen to f32, operate, round to nearest even; max/min ignore NaN). Average
// is a sum here: the caller scales (avg_scaling.h).
//
// Differences from NCCL's arithmetic: MPI's native max/min on floats follow MPI's comparison
// (a NaN operand may win, where NCCL ignores it); the order of a sum is MPI's.

#include <mpi.h>

#include <array>

#include "core/dtype.h"
#include "core/result.h"
#include "placement/placement.h"

namespace dtplan::replay {

// The datatype that moves one element of `dtype` unchanged (MPI_UINT8_T .. MPI_UINT64_T).
// @pre dtype_bytes(dtype) is 1, 2, 4 or 8.
MPI_Datatype movement_datatype(core::DType dtype);

// The user-defined ops for bf16 and f16, created once per process group and freed with it.
class MpiHalfOps {
 public:
  // Errors (kInternal) from MPI_Op_create.
  static core::Result<MpiHalfOps> create();
  MpiHalfOps(MpiHalfOps&& other) noexcept;
  MpiHalfOps& operator=(MpiHalfOps&&) = delete;
  MpiHalfOps(const MpiHalfOps&) = delete;
  ~MpiHalfOps();

  // @pre dtype is bf16 or f16; op is sum, max or min.
  [[nodiscard]] MPI_Op op(core::DType dtype, placement::ReduceOp op) const;

 private:
  MpiHalfOps() { ops_.fill(MPI_OP_NULL); }
  std::array<MPI_Op, 6> ops_{};  // {bf16, f16} x {sum, max, min}
};

struct MpiReduction {
  MPI_Datatype datatype = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
};

// The datatype and op that reduce `dtype` with `op` (avg: the sum); c64 reduces as pairs of
// MPI_FLOAT (the count is in reals, sim::real_view). @pre sim::reducible_by(dtype, op).
MpiReduction mpi_reduction(core::DType dtype, placement::ReduceOp op, const MpiHalfOps& half_ops);

}  // namespace dtplan::replay
