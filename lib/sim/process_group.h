#pragma once
// ProcessGroup: runs collectives on groups of ranks. One interface for the fake process group
// (every rank in one process, fake_process_group.h) and the replay backends (MPI, NCCL: one rank
// per process). A call names every group of the mesh dim at once, as every rank of the dim
// issues it together; each backend acts on the tensors of the ranks it holds in the RankTensors
// store (the fake: all of them; an SPMD backend: its own, finding its group among call.groups)
// and replaces each member's tensor by its output (shapes in collective_call.h).
//
//   FakeProcessGroup pg = FakeProcessGroup::create({.world_size = 8}).value();
//   RankTensors t(8);  // ... one tensor per rank
//   pg.all_reduce({{0, 1, 4, 5}, {2, 3, 6, 7}}, ReduceOp::kSum, t);   // both groups at once
//
// Errors (Status): a call that does not fit the world or the tensors (kBadInput, naming the call,
// the rank and the reason), an unsupported collective or dtype for a reduction (kUnsupported).
// On error no tensor has changed.

#include <cstdint>
#include <vector>

#include "core/result.h"
#include "sim/collective_call.h"
#include "sim/rank_tensors.h"

namespace dtplan::sim {

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;

  // The number of ranks in the world; calls name global ranks in [0, world_size()).
  [[nodiscard]] virtual std::int64_t world_size() const = 0;

  // Runs `call` on every group; the tensors of the member ranks this backend holds become their
  // outputs.
  virtual core::Status run(const CollectiveCall& call, RankTensors& tensors) = 0;

  // Conveniences that build the call.
  core::Status all_gather(std::vector<Group> groups, RankTensors& tensors) {
    return run({collective::Collective::kAllGather, std::move(groups)}, tensors);
  }
  core::Status reduce_scatter(std::vector<Group> groups, ReduceOp op, RankTensors& tensors) {
    return run({collective::Collective::kReduceScatter, std::move(groups), op}, tensors);
  }
  core::Status all_reduce(std::vector<Group> groups, ReduceOp op, RankTensors& tensors) {
    return run({collective::Collective::kAllReduce, std::move(groups), op}, tensors);
  }
  core::Status all_to_all(std::vector<Group> groups, RankTensors& tensors) {
    return run({collective::Collective::kAllToAll, std::move(groups)}, tensors);
  }
  core::Status broadcast(std::vector<Group> groups, std::int64_t root, RankTensors& tensors) {
    return run({collective::Collective::kBroadcast, std::move(groups), ReduceOp::kSum, root},
               tensors);
  }
};

}  // namespace dtplan::sim
