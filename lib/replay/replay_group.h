#pragma once
// ReplayGroup: a ProcessGroup that runs collectives for real, as the replay backends do (the MPI
// backend on CPUs, the NCCL backend on GPUs; LocalReplayGroup wraps the fake process group for
// tests and `--backend fake`). Beyond run() it says which ranks this process holds, synchronises
// the world, times one call without the checks and copies around it, and combines per-process
// numbers over the world (for timing and verification reports).
//
//   std::unique_ptr<ReplayGroup> pg = open_mpi_group().value();   // backends.h
//   RankTensors t(pg->world_size());
//   for (std::int64_t r : pg->held_ranks()) t.set(r, ...);
//   pg->barrier();
//   double us = pg->run_timed(call, t, 1).value();              // this process's time
//   auto worst = pg->reduce_over_world({us}, ReduceOp::kMax).value();
//
// SPMD contract: every process issues the same calls in the same order (a backend creates the
// communicators of a call's group list collectively, on first use). A call whose members disagree
// on dtype or shape, or where one member fails its local checks, fails on every member of that
// group with an error; no member hangs or changes its tensor.

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "sim/process_group.h"

namespace dtplan::replay {

using sim::CollectiveCall;
using sim::Group;
using sim::RankTensors;
using sim::ReduceOp;

class ReplayGroup : public sim::ProcessGroup {
 public:
  // "fake", "mpi", "nccl".
  [[nodiscard]] virtual std::string_view backend_name() const = 0;

  // The global ranks whose tensors this process holds, ascending: one rank per process for SPMD
  // backends, every rank for a backend driving all ranks from one process.
  [[nodiscard]] virtual std::vector<std::int64_t> held_ranks() const = 0;

  // This process's index among the processes of the world (0 for a single process); the process
  // with index 0 prints reports.
  [[nodiscard]] virtual std::int64_t process_index() const = 0;

  // Returns once every process has entered it (and, for GPUs, every queued operation finished).
  virtual core::Status barrier() = 0;

  // Runs `call` like run(), launching the collective `launches` times back to back on the same
  // input buffers, and returns the microseconds this process measured from the first launch to
  // the completion of the last (CPU backends: wall clock around the blocking calls; NCCL: CUDA
  // events on the stream). The checks, the communicator creation, allocations and host/device
  // copies are outside the measured span. The tensors then hold the call's outputs exactly as
  // run() would leave them (the launches are out of place, so repeating them does not compound).
  // @pre launches >= 1.
  virtual core::Result<double> run_timed(const CollectiveCall& call, RankTensors& tensors,
                                         int launches) = 0;

  // Element-wise combination of `values` over every process of the world (kSum, kMax or kMin;
  // kAvg divides the sum by the number of processes). Every process passes the same count and
  // receives the result. A single process returns `values` unchanged.
  virtual core::Result<std::vector<double>> reduce_over_world(std::vector<double> values,
                                                              ReduceOp op) = 0;
};

}  // namespace dtplan::replay
