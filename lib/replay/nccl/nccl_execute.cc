// NcclProcessGroup: running one collective call (checks, agreement, copies, launches, waiting).
#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "replay/member_check.h"
#include "replay/nccl/cuda_status.h"
#include "replay/nccl/nccl_process_group.h"
#include "sim/reduce_engine.h"

namespace dtplan::replay {

namespace {

using collective::Collective;

// One held member's part in a call.
struct Job {
  NcclProcessGroup::Member* member = nullptr;
  ncclComm_t comm = nullptr;
  const Group* group = nullptr;
  const sim::Tensor* input = nullptr;
  sim::Tensor output;
  std::size_t count = 0;  // the count argument, in elements of `datatype`
  ncclDataType_t datatype = ncclUint8;
};

ncclDataType_t reduce_datatype(core::DType dtype) {
  switch (dtype) {
    case core::DType::kF32:
    case core::DType::kC64:  // pairs of f32 (sum and avg only: sim::reducible_by)
      return ncclFloat32;
    case core::DType::kF64:
      return ncclFloat64;
    case core::DType::kBF16:
      return ncclBfloat16;
    case core::DType::kF16:
      return ncclFloat16;
    case core::DType::kI32:
      return ncclInt32;
    default:
      return ncclInt64;  // member_output admits only reducible dtypes here
  }
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return ncclSum;
    case ReduceOp::kAvg:
      return ncclAvg;
    case ReduceOp::kMax:
      return ncclMax;
    case ReduceOp::kMin:
      return ncclMin;
  }
  return ncclSum;
}

// The datatype and count argument: reductions in the dtype, data movement as bytes.
void set_arguments(const CollectiveCall& call, Job& job) {
  const auto n = static_cast<std::size_t>(job.group->size());
  const bool reduces = collective::facts(call.collective).reduces;
  const auto width = static_cast<std::size_t>(job.input->element_bytes());
  job.datatype = reduces ? reduce_datatype(job.input->dtype()) : ncclUint8;
  // Elements of `datatype` per tensor element: bytes when moving, reals when reducing (a
  // complex element is two, sim::real_view).
  const auto unit =
      reduces ? static_cast<std::size_t>(sim::real_view(job.input->dtype()).lanes) : width;
  const auto in_elements = static_cast<std::size_t>(job.input->numel()) * unit;
  switch (call.collective) {
    case Collective::kReduceScatter:
      job.count = static_cast<std::size_t>(job.output.numel()) * unit;
      break;
    case Collective::kAllToAll:
      job.count = in_elements / n;
      break;
    default:
      job.count = in_elements;
      break;
  }
}

ncclResult_t enqueue(const CollectiveCall& call, const Job& j) {
  const void* send = j.member->send.get();
  void* recv = j.member->recv.get();
  cudaStream_t s = j.member->stream.get();
  switch (call.collective) {
    case Collective::kAllGather:
      return ncclAllGather(send, recv, j.count, j.datatype, j.comm, s);
    case Collective::kReduceScatter:
      return ncclReduceScatter(send, recv, j.count, j.datatype, nccl_op(call.op), j.comm, s);
    case Collective::kAllReduce:
      return ncclAllReduce(send, recv, j.count, j.datatype, nccl_op(call.op), j.comm, s);
    case Collective::kAllToAll:
      return ncclAlltoAll(send, recv, j.count, j.datatype, j.comm, s);
    case Collective::kBroadcast:
      return ncclBroadcast(send, recv, j.count, j.datatype, static_cast<int>(call.root), j.comm, s);
    default:
      return ncclInvalidArgument;  // validate_call admits nothing else
  }
}

// One process holding every member of `group`: they must pass alike tensors.
core::Status check_alike(const CollectiveCall& call, const Group& group,
                         const RankTensors& tensors) {
  const sim::Tensor& first = tensors.at(group[0]);
  for (std::int64_t r : group) {
    const sim::Tensor& t = tensors.at(r);
    if (t.dtype() != first.dtype() || t.shape() != first.shape()) {
      return core::Error::bad_input(member_context(call, group) + ": rank " + std::to_string(r) +
                                    " has " + sim::describe(t) + ", rank " +
                                    std::to_string(group[0]) + " has " + sim::describe(first));
    }
  }
  return {};
}

// Agreement over the host group (one rank per process): every member learns whether all passed
// the local checks and whether their tensors are alike; `local` is this process's own status.
core::Status agree(ReplayGroup& host, const CollectiveCall& call, const std::vector<Group>& groups,
                   const std::vector<Job>& jobs, const core::Status& local, std::int64_t rank,
                   std::int64_t world_size) {
  const Job* mine = jobs.empty() ? nullptr : &jobs[0];
  RankTensors words_store(world_size);
  if (mine != nullptr || !local.ok()) {
    const AgreementWords words =
        agreement_words(call, mine != nullptr ? mine->input : nullptr, local);
    DTPLAN_TRY(sim::Tensor t, sim::Tensor::from_values<std::int64_t>(
                                  core::DType::kI64, {static_cast<std::int64_t>(words.size())},
                                  std::span<const std::int64_t>(words)));
    words_store.set(rank, std::move(t));
  }
  DTPLAN_CHECK(host.all_reduce(call.groups, ReduceOp::kMax, words_store));
  if (words_store.has(rank) && words_store.at(rank).numel() == 2 * kAgreementFacts) {
    AgreementWords reduced{};
    std::copy_n(words_store.at(rank).values<std::int64_t>().begin(), reduced.size(),
                reduced.begin());
    const Group& g = mine != nullptr ? *mine->group : groups[0];
    DTPLAN_CHECK(agreement_status(reduced, local, member_context(call, g),
                                  mine != nullptr ? sim::describe(*mine->input) : ""));
  }
  return {};
}

// Copies each job's input to its member's send buffer, on the member's stream so that the
// collective is ordered after the copy (a synchronous copy from pageable memory may return before
// its DMA finished); returns the members in job order.
core::Result<std::vector<NcclProcessGroup::Member*>> upload(const std::vector<Job>& jobs,
                                                            const std::string& context) {
  std::vector<NcclProcessGroup::Member*> busy;
  for (const Job& j : jobs) {
    NcclProcessGroup::Member& m = *j.member;
    DTPLAN_CHECK(cuda_status(cudaSetDevice(m.device), context + ": cudaSetDevice"));
    DTPLAN_CHECK(m.send.reserve(m.device, static_cast<std::size_t>(j.input->nbytes())));
    DTPLAN_CHECK(m.recv.reserve(m.device, static_cast<std::size_t>(j.output.nbytes())));
    DTPLAN_CHECK(cuda_status(
        cudaMemcpyAsync(m.send.get(), j.input->data(), static_cast<std::size_t>(j.input->nbytes()),
                        cudaMemcpyHostToDevice, m.stream.get()),
        context + ": copy to the GPU"));
    busy.push_back(&m);
  }
  return busy;
}

// Records each member's start (or stop) event on its stream.
core::Status record(const std::vector<NcclProcessGroup::Member*>& busy, bool start,
                    const std::string& context) {
  for (NcclProcessGroup::Member* m : busy) {
    DTPLAN_CHECK(cuda_status(cudaSetDevice(m->device), context + ": cudaSetDevice"));
    cudaEvent_t event = start ? m->start.get() : m->stop.get();
    DTPLAN_CHECK(cuda_status(cudaEventRecord(event, m->stream.get()), "cudaEventRecord"));
  }
  return {};
}

// Enqueues the call `launches` times, the jobs of one launch in one NCCL group when several.
core::Status launch(const CollectiveCall& call, const std::vector<Job>& jobs, int launches,
                    const std::string& context) {
  const bool grouped = jobs.size() > 1;
  for (int i = 0; i < launches; ++i) {
    if (grouped) DTPLAN_CHECK(nccl_status(ncclGroupStart(), context + ": ncclGroupStart"));
    ncclResult_t first_error = ncclSuccess;
    for (const Job& j : jobs) {
      cudaSetDevice(j.member->device);
      const ncclResult_t r = enqueue(call, j);
      if (first_error == ncclSuccess) first_error = r;
    }
    const ncclResult_t end = grouped ? ncclGroupEnd() : ncclSuccess;
    DTPLAN_CHECK(nccl_status(first_error, context));
    DTPLAN_CHECK(nccl_status(end, context + ": ncclGroupEnd"));
  }
  return {};
}

// The longest member's time between its start and stop events.
core::Result<double> elapsed_ms(const std::vector<NcclProcessGroup::Member*>& busy) {
  double out = 0;
  for (NcclProcessGroup::Member* m : busy) {
    float ms = 0;
    DTPLAN_CHECK(cuda_status(cudaEventElapsedTime(&ms, m->start.get(), m->stop.get()),
                             "cudaEventElapsedTime"));
    out = std::max(out, static_cast<double>(ms));
  }
  return out;
}

// Copies each job's result from its member's receive buffer into the job's output.
core::Status download(std::vector<Job>& jobs, const std::string& context) {
  for (Job& j : jobs) {
    DTPLAN_CHECK(cuda_status(cudaSetDevice(j.member->device), context + ": cudaSetDevice"));
    cudaStream_t s = j.member->stream.get();
    DTPLAN_CHECK(cuda_status(
        cudaMemcpyAsync(j.output.data(), j.member->recv.get(),
                        static_cast<std::size_t>(j.output.nbytes()), cudaMemcpyDeviceToHost, s),
        context + ": copy from the GPU"));
    DTPLAN_CHECK(cuda_status(cudaStreamSynchronize(s), context + ": copy from the GPU"));
  }
  return {};
}

}  // namespace

core::Result<double> NcclProcessGroup::execute(const CollectiveCall& call, RankTensors& tensors,
                                               int launches) {
  if (aborted_) {
    return core::Error::internal(
        "NCCL backend: the communicators were aborted after an earlier failure; open a new "
        "process group");
  }
  DTPLAN_CHECK(sim::validate_call(call, world_size_));
  const std::vector<Group> groups = canonical_groups(call.groups);
  DTPLAN_TRY(std::vector<ncclComm_t> comms, communicators(groups));

  // Local checks of every held member in a group.
  std::vector<Job> jobs;
  core::Status local;
  for (std::size_t i = 0; i < members_.size() && local.ok(); ++i) {
    Member& m = members_[i];
    const SplitArgs args = split_args(groups, m.rank);
    if (!args.color.has_value()) continue;
    Job job;
    job.member = &m;
    job.comm = comms[i];
    job.group = &groups[static_cast<std::size_t>(*args.color)];
    auto output = member_output(call, *job.group, m.rank, world_size_, tensors);
    if (!output.ok()) {
      local = output.error();
      break;
    }
    job.output = std::move(output).value();
    job.input = &tensors.at(m.rank);
    set_arguments(call, job);
    jobs.push_back(std::move(job));
  }
  // Agreement: over MPI when each process holds one rank, directly when this one holds all.
  if (host_ != nullptr) {
    DTPLAN_CHECK(agree(*host_, call, groups, jobs, local, members_[0].rank, world_size_));
  }
  DTPLAN_CHECK(local);
  if (host_ == nullptr) {
    for (const Group& g : groups) DTPLAN_CHECK(check_alike(call, g, tensors));
  }
  // One-rank groups are the identity; only groups of two or more launch.
  std::erase_if(jobs, [](const Job& j) { return j.group->size() < 2; });
  if (jobs.empty()) return 0.0;

  const std::string context = sim::describe(call);
  DTPLAN_TRY(std::vector<Member*> busy, upload(jobs, context));
  DTPLAN_CHECK(record(busy, /*start=*/true, context));
  DTPLAN_CHECK(launch(call, jobs, launches, context));
  DTPLAN_CHECK(record(busy, /*start=*/false, context));
  std::vector<ncclComm_t> used;
  for (const Job& j : jobs) used.push_back(j.comm);
  DTPLAN_CHECK(wait(busy, used, context));
  DTPLAN_TRY(const double ms, elapsed_ms(busy));
  DTPLAN_CHECK(download(jobs, context));
  for (Job& j : jobs) tensors.set(j.member->rank, std::move(j.output));
  return ms * 1e3;
}

core::Status NcclProcessGroup::wait(const std::vector<Member*>& members,
                                    const std::vector<ncclComm_t>& comms,
                                    std::string_view context) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s_);
  while (true) {
    bool done = true;
    for (Member* m : members) {
      cudaSetDevice(m->device);
      const cudaError_t e = cudaStreamQuery(m->stream.get());
      if (e == cudaErrorNotReady) {
        done = false;
      } else if (e != cudaSuccess) {
        core::Status status =
            cuda_status(e, std::string(context) + ": on GPU " + std::to_string(m->device));
        abort_all();
        return status;
      }
    }
    for (ncclComm_t c : comms) {
      ncclResult_t async = ncclSuccess;
      const ncclResult_t query = ncclCommGetAsyncError(c, &async);
      const ncclResult_t error = query != ncclSuccess ? query : async;
      if (error != ncclSuccess && error != ncclInProgress) {
        core::Status status = nccl_status(error, std::string(context) + ": asynchronous error");
        abort_all();
        return status;
      }
    }
    if (done) return {};
    if (std::chrono::steady_clock::now() > deadline) {
      abort_all();
      return core::Error::internal(std::string(context) + ": did not finish within " +
                                   std::to_string(timeout_s_) +
                                   " s; every NCCL communicator of this process was aborted (a "
                                   "peer may have failed or issued another call)");
    }
    std::this_thread::yield();
  }
}

}  // namespace dtplan::replay
