#pragma once
// NcclProcessGroup: the NCCL replay backend (GPUs). Either one process per GPU (the world is the
// MPI world; the NCCL id is broadcast over the MPI backend, which also carries barriers, world
// reductions and the member agreement check) or one process driving several local GPUs (world =
// its GPUs, ncclCommInitAll, every call issued for all members inside one NCCL group). Modes and
// options: backends.h (NcclGroupOptions).
//
// A call: the first call on a group list creates its communicators (per process: ncclCommSplit of
// the world communicator, color/key as comm_split.h, collective on every process; one process:
// ncclCommInitAll over each group's GPUs in group-rank order) and caches them. Per member: the
// local checks, then the agreement check (as the MPI backend), then the input is copied to a
// device buffer, the collective runs out of place on the member's stream between two CUDA
// events, and the output is copied back into a new host tensor, installed only when every member
// succeeded.
//   all_gather ncclAllGather, reduce_scatter ncclReduceScatter, all_reduce ncclAllReduce,
//   all_to_all ncclAlltoAll, broadcast ncclBroadcast; sum/avg/max/min are NCCL's own ops (avg:
//   PreMulSum for floats, SumPostDiv for integers, as the fake models). Data movement sends any
//   dtype as bytes.
// Completion is polled (cudaStreamQuery, ncclCommGetAsyncError) until `timeout_s`; an
// asynchronous NCCL error or the deadline aborts every communicator (ncclCommAbort) and the call
// fails; the group is then unusable (later calls fail at once). Communicator creation itself has
// no deadline (NCCL's bootstrap waits for every rank).

#include <nccl.h>

#include <memory>
#include <vector>

#include "replay/backends.h"
#include "replay/comm_split.h"
#include "replay/nccl/cuda_handles.h"
#include "replay/replay_group.h"

namespace dtplan::replay {

class NcclProcessGroup final : public ReplayGroup {
 public:
  // Errors as open_nccl_group (backends.h).
  static core::Result<std::unique_ptr<NcclProcessGroup>> create(const NcclGroupOptions& options);

  NcclProcessGroup(const NcclProcessGroup&) = delete;
  NcclProcessGroup& operator=(const NcclProcessGroup&) = delete;
  ~NcclProcessGroup() override;

  [[nodiscard]] std::int64_t world_size() const override { return world_size_; }
  core::Status run(const CollectiveCall& call, RankTensors& tensors) override;

  [[nodiscard]] std::string_view backend_name() const override { return "nccl"; }
  [[nodiscard]] std::vector<std::int64_t> held_ranks() const override;
  [[nodiscard]] std::int64_t process_index() const override;
  core::Status barrier() override;
  core::Result<double> run_timed(const CollectiveCall& call, RankTensors& tensors,
                                 int launches) override;
  core::Result<std::vector<double>> reduce_over_world(std::vector<double> values,
                                                      ReduceOp op) override;

  // One rank this process holds: its GPU, its world communicator, stream, timing events and
  // device buffers.
  struct Member {
    std::int64_t rank = 0;
    int device = 0;
    ncclComm_t world = nullptr;
    CudaStream stream;
    CudaEvent start;
    CudaEvent stop;
    DeviceBuffer send;
    DeviceBuffer recv;
  };

 private:
  NcclProcessGroup() = default;

  static core::Result<std::unique_ptr<NcclProcessGroup>> create_single(
      const NcclGroupOptions& options, int device_count);
  static core::Result<std::unique_ptr<NcclProcessGroup>> create_per_process(
      const NcclGroupOptions& options, int device_count);

  // One communicator per member (nullptr for a member in no group) for canonical `groups`.
  core::Result<std::vector<ncclComm_t>> communicators(const std::vector<Group>& groups);
  core::Result<double> execute(const CollectiveCall& call, RankTensors& tensors, int launches);
  // Waits for the members' streams; on an NCCL error or past the deadline aborts everything.
  core::Status wait(const std::vector<Member*>& members, const std::vector<ncclComm_t>& comms,
                    std::string_view context);
  void abort_all();

  std::unique_ptr<ReplayGroup> host_;  // per-process mode: the MPI group (destroyed last)
  std::vector<Member> members_;        // ascending rank
  CommCache<std::vector<ncclComm_t>> comms_;
  std::int64_t world_size_ = 0;
  double timeout_s_ = 300;
  bool aborted_ = false;
};

}  // namespace dtplan::replay
