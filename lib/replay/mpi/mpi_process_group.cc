#include "replay/mpi/mpi_process_group.h"

#include <chrono>
#include <climits>
#include <cstring>
#include <optional>
#include <string>

#include "replay/avg_scaling.h"
#include "replay/member_check.h"
#include "sim/reduce_engine.h"

namespace dtplan::replay {

namespace {

using collective::Collective;

// One member's buffers and MPI arguments for a call, prepared before any data moves.
struct Launch {
  const sim::Tensor* input = nullptr;
  std::optional<sim::Tensor> scaled;  // a floating avg's premultiplied input
  sim::Tensor output;
  int count = 0;  // the count argument of the MPI call
  MPI_Datatype datatype = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  bool divide = false;  // an integer avg: divide the sum by n afterwards

  [[nodiscard]] const void* send() const {
    return scaled.has_value() ? scaled->data() : input->data();
  }
};

// The count argument: the elements of one rank's buffer per MPI's convention for the collective.
std::int64_t mpi_count(Collective c, std::int64_t in_numel, std::int64_t out_numel,
                       std::int64_t n) {
  switch (c) {
    case Collective::kReduceScatter:
      return out_numel;
    case Collective::kAllToAll:
      return in_numel / n;
    default:
      return in_numel;
  }
}

// Local checks and buffers of member `rank` of `group`.
core::Result<Launch> prepare(const CollectiveCall& call, const Group& group, std::int64_t rank,
                             std::int64_t world, const RankTensors& tensors,
                             const MpiHalfOps& half_ops) {
  DTPLAN_TRY(sim::Tensor output, member_output(call, group, rank, world, tensors));
  const sim::Tensor& in = tensors.at(rank);
  const auto n = static_cast<std::int64_t>(group.size());
  // Reductions count real elements (a complex element is two, sim::real_view).
  const bool reduces = collective::facts(call.collective).reduces;
  const std::int64_t lanes = reduces ? sim::real_view(in.dtype()).lanes : 1;
  const std::int64_t count =
      mpi_count(call.collective, in.numel() * lanes, output.numel() * lanes, n);
  if (count > INT_MAX) {
    return core::Error::unsupported(member_context(call, group) + ": " + std::to_string(count) +
                                    " elements per MPI call exceed MPI's int count (2^31-1)");
  }
  Launch launch;
  launch.input = &in;
  launch.output = std::move(output);
  launch.count = static_cast<int>(count);
  if (!reduces) {
    launch.datatype = movement_datatype(in.dtype());
    return launch;
  }
  const MpiReduction reduction = mpi_reduction(in.dtype(), call.op, half_ops);
  launch.datatype = reduction.datatype;
  launch.op = reduction.op;
  if (call.op == ReduceOp::kAvg && avg_premultiplies(in.dtype())) {
    auto scaled = premultiplied(in, n);
    if (!scaled.ok()) return scaled.error().with_context(member_context(call, group));
    launch.scaled = std::move(scaled).value();
  } else if (call.op == ReduceOp::kAvg) {
    launch.divide = true;
  }
  return launch;
}

int launch_once(const CollectiveCall& call, Launch& l, MPI_Comm comm) {
  void* recv = l.output.data();
  switch (call.collective) {
    case Collective::kAllGather:
      return MPI_Allgather(l.send(), l.count, l.datatype, recv, l.count, l.datatype, comm);
    case Collective::kReduceScatter:
      return MPI_Reduce_scatter_block(l.send(), recv, l.count, l.datatype, l.op, comm);
    case Collective::kAllReduce:
      return MPI_Allreduce(l.send(), recv, l.count, l.datatype, l.op, comm);
    case Collective::kAllToAll:
      return MPI_Alltoall(l.send(), l.count, l.datatype, recv, l.count, l.datatype, comm);
    case Collective::kBroadcast:
      return MPI_Bcast(recv, l.count, l.datatype, static_cast<int>(call.root), comm);
    default:
      return MPI_ERR_OP;  // validate_call admits nothing else
  }
}

MPI_Op world_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::kMax:
      return MPI_MAX;
    case ReduceOp::kMin:
      return MPI_MIN;
    default:
      return MPI_SUM;
  }
}

}  // namespace

core::Result<std::unique_ptr<MpiProcessGroup>> MpiProcessGroup::create(
    std::shared_ptr<MpiEnvironment> environment) {
  DTPLAN_TRY(MpiHalfOps half_ops, MpiHalfOps::create());
  return std::unique_ptr<MpiProcessGroup>(
      new MpiProcessGroup(std::move(environment), std::move(half_ops)));
}

MpiProcessGroup::~MpiProcessGroup() {
  comms_.release_all([](MPI_Comm& comm) {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  });
}

core::Result<MPI_Comm> MpiProcessGroup::communicator(const std::vector<Group>& groups) {
  if (const MPI_Comm* cached = comms_.find(groups)) return *cached;
  const SplitArgs args = split_args(groups, rank());
  MPI_Comm comm = MPI_COMM_NULL;
  DTPLAN_CHECK(mpi_status(
      MPI_Comm_split(MPI_COMM_WORLD, args.color.value_or(MPI_UNDEFINED), args.key, &comm),
      "MPI_Comm_split for groups " + groups_string(groups)));
  if (comm != MPI_COMM_NULL) {
    const int rc = MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    if (rc != MPI_SUCCESS) MPI_Comm_free(&comm);
    DTPLAN_CHECK(mpi_status(rc, "MPI_Comm_set_errhandler"));
  }
  return comms_.insert(groups, comm);
}

core::Result<double> MpiProcessGroup::execute(const CollectiveCall& call, RankTensors& tensors,
                                              int launches) {
  DTPLAN_CHECK(sim::validate_call(call, world_size()));
  const std::vector<Group> groups = canonical_groups(call.groups);
  DTPLAN_TRY(MPI_Comm comm, communicator(groups));
  const SplitArgs args = split_args(groups, rank());
  if (!args.color.has_value()) return 0.0;  // not a member: nothing to do
  const Group& group = groups[static_cast<std::size_t>(*args.color)];
  const std::string context = member_context(call, group);

  core::Result<Launch> launch = prepare(call, group, rank(), world_size(), tensors, half_ops_);
  const core::Status local = launch.ok() ? core::Status() : core::Status(launch.error());
  if (group.size() > 1) {
    AgreementWords words = agreement_words(call, launch.ok() ? launch->input : nullptr, local);
    DTPLAN_CHECK(
        mpi_status(MPI_Allreduce(MPI_IN_PLACE, words.data(), static_cast<int>(words.size()),
                                 MPI_INT64_T, MPI_MAX, comm),
                   context + ": MPI_Allreduce (member agreement)"));
    DTPLAN_CHECK(
        agreement_status(words, local, context, launch.ok() ? sim::describe(*launch->input) : ""));
  }
  DTPLAN_CHECK(local);
  if (group.size() == 1) return 0.0;  // every collective is the identity on one rank

  Launch& l = launch.value();
  if (call.collective == Collective::kBroadcast) {
    std::memcpy(l.output.data(), l.input->data(), static_cast<std::size_t>(l.input->nbytes()));
  }
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < launches; ++i) {
    DTPLAN_CHECK(mpi_status(launch_once(call, l, comm), context));
  }
  const auto stop = std::chrono::steady_clock::now();
  if (l.divide) divide_in_place(l.output, static_cast<std::int64_t>(group.size()));
  tensors.set(rank(), std::move(l.output));
  return std::chrono::duration<double, std::micro>(stop - start).count();
}

core::Status MpiProcessGroup::run(const CollectiveCall& call, RankTensors& tensors) {
  DTPLAN_CHECK(execute(call, tensors, 1));
  return {};
}

core::Result<double> MpiProcessGroup::run_timed(const CollectiveCall& call, RankTensors& tensors,
                                                int launches) {
  return execute(call, tensors, launches);
}

core::Status MpiProcessGroup::barrier() {
  return mpi_status(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

core::Result<std::vector<double>> MpiProcessGroup::reduce_over_world(std::vector<double> values,
                                                                     ReduceOp op) {
  if (values.size() > static_cast<std::size_t>(INT_MAX)) {
    return core::Error::unsupported("MPI: too many values to reduce over the world");
  }
  DTPLAN_CHECK(
      mpi_status(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()),
                               MPI_DOUBLE, world_op(op), MPI_COMM_WORLD),
                 "MPI_Allreduce over the world"));
  if (op == ReduceOp::kAvg) {
    for (double& v : values) v /= static_cast<double>(world_size());
  }
  return values;
}

}  // namespace dtplan::replay
