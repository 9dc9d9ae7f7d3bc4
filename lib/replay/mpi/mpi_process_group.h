#pragma once
// MpiProcessGroup: the MPI replay backend. One rank per process (the world is MPI_COMM_WORLD);
// each process holds only its own rank's tensor in the RankTensors store and runs every call with
// the other processes, on CPU buffers of every dtype:
//   all_gather MPI_Allgather, reduce_scatter MPI_Reduce_scatter_block, all_reduce MPI_Allreduce,
//   all_to_all MPI_Alltoall, broadcast MPI_Bcast; reductions as mpi_types.h and avg_scaling.h.
// Communicators come from comm_split.h: the first call on a group list splits MPI_COMM_WORLD
// (collectively, on every rank, members or not) and caches the communicators.
//
//   auto pg = MpiProcessGroup::create(MpiEnvironment::acquire().value()).value();
//   RankTensors t(pg->world_size());
//   t.set(pg->rank(), Tensor::from_values<float>({2}, {1, 2}).value());
//   pg->all_reduce({{0, 1}, {2, 3}}, ReduceOp::kSum, t);   // on 4 processes
//
// Per call and member, before any data moves: the local checks (tensor present, with data,
// reducible dtype, output shape, MPI's int counts: at most 2^31-1 elements per rank buffer), then
// one small MPI_Allreduce over the group that compares every member's dtype, shape and call and
// shares any member's failure, so that all members fail together (the failing one with its own
// error, the others with the same kind, naming the group). A one-rank group is the identity. A
// process outside every group of the call returns after the split. Errors of MPI calls are
// kInternal with MPI's text; after such an error MPI's state is undefined (other processes may
// wait). Outputs are computed out of place and installed only on success.

#include <mpi.h>

#include <memory>
#include <vector>

#include "replay/comm_split.h"
#include "replay/mpi/mpi_environment.h"
#include "replay/mpi/mpi_types.h"
#include "replay/replay_group.h"

namespace dtplan::replay {

class MpiProcessGroup final : public ReplayGroup {
 public:
  // Errors (kInternal) from MPI.
  static core::Result<std::unique_ptr<MpiProcessGroup>> create(
      std::shared_ptr<MpiEnvironment> environment);

  MpiProcessGroup(const MpiProcessGroup&) = delete;
  MpiProcessGroup& operator=(const MpiProcessGroup&) = delete;
  ~MpiProcessGroup() override;

  [[nodiscard]] std::int64_t world_size() const override { return environment_->world_size(); }
  [[nodiscard]] std::int64_t rank() const { return environment_->world_rank(); }
  core::Status run(const CollectiveCall& call, RankTensors& tensors) override;

  [[nodiscard]] std::string_view backend_name() const override { return "mpi"; }
  [[nodiscard]] std::vector<std::int64_t> held_ranks() const override { return {rank()}; }
  [[nodiscard]] std::int64_t process_index() const override { return rank(); }
  core::Status barrier() override;
  core::Result<double> run_timed(const CollectiveCall& call, RankTensors& tensors,
                                 int launches) override;
  core::Result<std::vector<double>> reduce_over_world(std::vector<double> values,
                                                      ReduceOp op) override;

  // Group lists split so far (one communicator split each).
  [[nodiscard]] std::size_t split_count() const { return comms_.size(); }

 private:
  MpiProcessGroup(std::shared_ptr<MpiEnvironment> environment, MpiHalfOps half_ops)
      : environment_(std::move(environment)), half_ops_(std::move(half_ops)) {}

  // This rank's communicator for canonical `groups` (MPI_COMM_NULL outside them); splits on
  // first use.
  core::Result<MPI_Comm> communicator(const std::vector<Group>& groups);
  core::Result<double> execute(const CollectiveCall& call, RankTensors& tensors, int launches);

  std::shared_ptr<MpiEnvironment> environment_;  // outlives every handle below
  MpiHalfOps half_ops_;
  CommCache<MPI_Comm> comms_;
};

}  // namespace dtplan::replay
