// NcclProcessGroup: creation (both modes), communicators, world operations, teardown. The
// collectives themselves are in nccl_execute.cc.
#include "replay/nccl/nccl_process_group.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "replay/launch.h"
#include "replay/nccl/cuda_status.h"

namespace dtplan::replay {

namespace {

core::Error setup_error(const std::string& message) {
  return core::Error::unsupported("NCCL backend: " + message);
}

core::Status make_member_handles(NcclProcessGroup::Member& m) {
  DTPLAN_TRY(m.stream, CudaStream::create(m.device));
  DTPLAN_TRY(m.start, CudaEvent::create(m.device));
  DTPLAN_TRY(m.stop, CudaEvent::create(m.device));
  return {};
}

// The GPU of local rank `local_rank` in per-process mode.
core::Result<int> per_process_device(const NcclGroupOptions& options, const LaunchInfo& launch,
                                     std::int64_t world, int device_count) {
  std::int64_t local_rank = 0;
  if (launch.local_rank.has_value()) {
    local_rank = *launch.local_rank;
  } else if (world > 1) {
    return setup_error("the launcher (" + std::string(launcher_name(launch.launcher)) +
                       ") does not say this process's local rank, which picks its GPU");
  }
  std::int64_t device = local_rank;
  if (!options.devices.empty()) {
    if (local_rank >= static_cast<std::int64_t>(options.devices.size())) {
      return setup_error("local rank " + std::to_string(local_rank) + " has no entry in the " +
                         std::to_string(options.devices.size()) + " devices given");
    }
    device = options.devices[static_cast<std::size_t>(local_rank)];
  }
  if (device < 0 || device >= device_count) {
    return setup_error("local rank " + std::to_string(local_rank) + " would use GPU " +
                       std::to_string(device) + ", but this node has " +
                       std::to_string(device_count) + " (one GPU per process)");
  }
  return static_cast<int>(device);
}

}  // namespace

core::Result<std::unique_ptr<NcclProcessGroup>> NcclProcessGroup::create(
    const NcclGroupOptions& options) {
  if (!(options.timeout_s > 0)) {
    return core::Error::bad_input("NCCL backend: timeout must be positive, got " +
                                  std::to_string(options.timeout_s) + " s");
  }
  auto count = cuda_device_count();
  if (!count.ok()) return count.error().with_context("NCCL backend");
  DTPLAN_TRY(LaunchInfo launch, detect_launch());
  NcclMode mode = options.mode;
  if (mode == NcclMode::kAuto) {
    if (mpi_launcher(launch.launcher)) {
      mode = NcclMode::kPerProcess;
    } else if (launch.launcher == Launcher::kTorchrun) {
      return setup_error(
          "launched by torchrun (WORLD_SIZE=" + std::to_string(launch.world_size) +
          "), but dtplan bootstraps NCCL over MPI only (it has no TCP store for "
          "MASTER_ADDR/MASTER_PORT); launch one process per GPU with mpirun or srun, or one "
          "process for all local GPUs");
    } else {
      mode = NcclMode::kSingleProcess;
    }
  }
  if (mode == NcclMode::kPerProcess) return create_per_process(options, count.value());
  return create_single(options, count.value());
}

core::Result<std::unique_ptr<NcclProcessGroup>> NcclProcessGroup::create_single(
    const NcclGroupOptions& options, int device_count) {
  std::vector<int> devices = options.devices;
  if (devices.empty()) {
    for (int d = 0; d < device_count; ++d) devices.push_back(d);
  }
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (devices[i] < 0 || devices[i] >= device_count) {
      return setup_error("device " + std::to_string(devices[i]) + " does not exist (this machine " +
                         "has " + std::to_string(device_count) + " GPUs)");
    }
    if (std::find(devices.begin(), devices.begin() + static_cast<std::ptrdiff_t>(i), devices[i]) !=
        devices.begin() + static_cast<std::ptrdiff_t>(i)) {
      return setup_error("device " + std::to_string(devices[i]) +
                         " is listed twice (NCCL cannot use one GPU as two ranks)");
    }
  }
  std::unique_ptr<NcclProcessGroup> pg(new NcclProcessGroup());
  pg->world_size_ = static_cast<std::int64_t>(devices.size());
  pg->timeout_s_ = options.timeout_s;
  std::vector<ncclComm_t> comms(devices.size(), nullptr);
  DTPLAN_CHECK(nccl_status(
      ncclCommInitAll(comms.data(), static_cast<int>(devices.size()), devices.data()),
      "NCCL backend: ncclCommInitAll over " + std::to_string(devices.size()) + " GPUs"));
  pg->members_.resize(devices.size());
  for (std::size_t i = 0; i < devices.size(); ++i) {
    Member& m = pg->members_[i];
    m.rank = static_cast<std::int64_t>(i);
    m.device = devices[i];
    m.world = comms[i];  // owned (destroyed with pg) from here on
  }
  for (Member& m : pg->members_) DTPLAN_CHECK(make_member_handles(m));
  return pg;
}

core::Result<std::unique_ptr<NcclProcessGroup>> NcclProcessGroup::create_per_process(
    const NcclGroupOptions& options, int device_count) {
  auto host = open_mpi_group();
  if (!host.ok()) {
    return host.error().with_context("NCCL backend: one process per GPU bootstraps over MPI");
  }
  std::unique_ptr<NcclProcessGroup> pg(new NcclProcessGroup());
  pg->host_ = std::move(host).value();
  pg->world_size_ = pg->host_->world_size();
  pg->timeout_s_ = options.timeout_s;
  const std::int64_t rank = pg->host_->process_index();
  pg->members_.resize(1);
  Member& m = pg->members_[0];
  m.rank = rank;

  // Every local step first; then all processes learn whether all succeeded before any waits in
  // NCCL's bootstrap.
  ncclUniqueId id;
  std::memset(&id, 0, sizeof(id));
  core::Status local = [&]() -> core::Status {
    DTPLAN_TRY(LaunchInfo launch, detect_launch());
    DTPLAN_TRY(m.device, per_process_device(options, launch, pg->world_size_, device_count));
    DTPLAN_CHECK(make_member_handles(m));
    if (rank == 0) DTPLAN_CHECK(nccl_status(ncclGetUniqueId(&id), "ncclGetUniqueId"));
    return {};
  }();
  DTPLAN_TRY(std::vector<double> failed,
             pg->host_->reduce_over_world({local.ok() ? 0.0 : 1.0}, ReduceOp::kMax));
  if (!local.ok()) return std::move(local).error();
  if (failed.size() != 1 || failed[0] != 0) {
    return core::Error::internal("NCCL backend: another process failed to set up its GPU");
  }

  // The id from process 0 to all, as a byte tensor over the MPI backend.
  RankTensors t(pg->world_size_);
  DTPLAN_TRY(sim::Tensor bytes,
             sim::Tensor::zeros(core::DType::kU8, {static_cast<std::int64_t>(sizeof(id))}));
  std::memcpy(bytes.data(), &id, sizeof(id));
  t.set(rank, std::move(bytes));
  Group everyone(static_cast<std::size_t>(pg->world_size_));
  for (std::size_t r = 0; r < everyone.size(); ++r) everyone[r] = static_cast<std::int64_t>(r);
  DTPLAN_CHECK(pg->host_->broadcast({everyone}, 0, t));
  std::memcpy(&id, t.at(rank).data(), sizeof(id));

  DTPLAN_CHECK(cuda_status(cudaSetDevice(m.device), "cudaSetDevice"));
  DTPLAN_CHECK(nccl_status(
      ncclCommInitRank(&m.world, static_cast<int>(pg->world_size_), id, static_cast<int>(rank)),
      "NCCL backend: ncclCommInitRank (rank " + std::to_string(rank) + " of " +
          std::to_string(pg->world_size_) + ")"));
  return pg;
}

NcclProcessGroup::~NcclProcessGroup() {
  const bool abort = aborted_;
  auto release = [abort](ncclComm_t& c) {
    if (c == nullptr) return;
    if (abort) {
      ncclCommAbort(c);
    } else {
      ncclCommDestroy(c);
    }
    c = nullptr;
  };
  comms_.release_all([&](std::vector<ncclComm_t>& cs) {
    for (ncclComm_t& c : cs) release(c);
  });
  for (Member& m : members_) release(m.world);
}

void NcclProcessGroup::abort_all() {
  comms_.release_all([](std::vector<ncclComm_t>& cs) {
    for (ncclComm_t& c : cs) {
      if (c != nullptr) ncclCommAbort(c);
      c = nullptr;
    }
  });
  for (Member& m : members_) {
    if (m.world != nullptr) ncclCommAbort(m.world);
    m.world = nullptr;
  }
  aborted_ = true;
}

core::Result<std::vector<ncclComm_t>> NcclProcessGroup::communicators(
    const std::vector<Group>& groups) {
  if (const std::vector<ncclComm_t>* cached = comms_.find(groups)) return *cached;
  std::vector<ncclComm_t> handles(members_.size(), nullptr);
  const std::string what = "NCCL backend: communicators for groups " + groups_string(groups);
  if (host_ != nullptr) {
    Member& m = members_[0];
    const SplitArgs args = split_args(groups, m.rank);
    DTPLAN_CHECK(cuda_status(cudaSetDevice(m.device), "cudaSetDevice"));
    DTPLAN_CHECK(nccl_status(ncclCommSplit(m.world, args.color.value_or(NCCL_SPLIT_NOCOLOR),
                                           args.key, &handles[0], nullptr),
                             what + ": ncclCommSplit"));
    return comms_.insert(groups, std::move(handles));
  }
  // One process holds every rank: member index == rank. One-rank groups need no communicator.
  for (const Group& g : groups) {
    if (g.size() < 2) continue;
    std::vector<int> devices;
    for (std::int64_t r : g) devices.push_back(members_[static_cast<std::size_t>(r)].device);
    std::vector<ncclComm_t> made(g.size(), nullptr);
    const core::Status status =
        nccl_status(ncclCommInitAll(made.data(), static_cast<int>(made.size()), devices.data()),
                    what + ": ncclCommInitAll for " + sim::group_string(g));
    if (!status.ok()) {
      for (ncclComm_t& c : handles) {
        if (c != nullptr) ncclCommDestroy(c);
      }
      return status.error();
    }
    for (std::size_t i = 0; i < g.size(); ++i) handles[static_cast<std::size_t>(g[i])] = made[i];
  }
  return comms_.insert(groups, std::move(handles));
}

std::vector<std::int64_t> NcclProcessGroup::held_ranks() const {
  std::vector<std::int64_t> out;
  for (const Member& m : members_) out.push_back(m.rank);
  return out;
}

std::int64_t NcclProcessGroup::process_index() const {
  return host_ != nullptr ? host_->process_index() : 0;
}

core::Status NcclProcessGroup::barrier() {
  for (const Member& m : members_) {
    DTPLAN_CHECK(cuda_status(cudaSetDevice(m.device), "cudaSetDevice"));
    DTPLAN_CHECK(cuda_status(cudaStreamSynchronize(m.stream.get()), "cudaStreamSynchronize"));
  }
  return host_ != nullptr ? host_->barrier() : core::Status();
}

core::Result<std::vector<double>> NcclProcessGroup::reduce_over_world(std::vector<double> values,
                                                                      ReduceOp op) {
  if (host_ == nullptr) return values;  // one process
  return host_->reduce_over_world(std::move(values), op);
}

core::Status NcclProcessGroup::run(const CollectiveCall& call, RankTensors& tensors) {
  DTPLAN_CHECK(execute(call, tensors, 1));
  return {};
}

core::Result<double> NcclProcessGroup::run_timed(const CollectiveCall& call, RankTensors& tensors,
                                                 int launches) {
  return execute(call, tensors, launches);
}

}  // namespace dtplan::replay
