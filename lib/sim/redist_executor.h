#pragma once
// RedistExecutor: runs a RedistPlan's steps on the local tensors a ProcessGroup backend holds
// (docs/reference/placements.md §2, §2.1, §1.4, §4.4). Written against ProcessGroup and RankTensors
// only, so it runs unchanged on the fake process group (every rank in one process, data or
// cost-only mode) and on the SPMD replay backends (MPI, NCCL: the store holds one rank, and that
// rank's process calls run() like every other rank).
//
//   auto exec = RedistExecutor::create(plan).value();     // mesh, groups, states, once
//   RankTensors t(exec.world_size());                    // t.at(r): rank r's local tensor of src
//   exec.run(pg, t);                                      // t.at(r): rank r's local tensor of dst
//
// Each step, on every held rank of the mesh (ranks outside the mesh are left alone; a step whose
// group has one rank is skipped entirely, as DTensor does):
//   local_chunk      R -> S(d): torch.chunk piece g (empties appended); R -> _S(d,sf): the strided
//                    split (strided_ops.h)
//   local_partition  R -> P(sum): divide by the group size; P(avg|max|min): unchanged
//   all_reduce       all_reduce(op) on the groups; a merged sum+avg step divides by avg_scale
//   reduce_scatter   P -> S(d): reduce_scatter(op) along d, torch.chunk padding by the real local
//                    size (uneven: pad every piece to ceil(S/n), trim this rank's padding);
//                    P -> _S: all_reduce then the strided split; avg_scale as above
//   all_gather       S(d) -> R: pad dim d to ceil(L/n) (L the step's logical length,
//   docs/reference/placements.md §1.3),
//                    gather, trim to L; _S(d,sf) -> R: pad to the largest strided shard, gather,
//                    index_select the rows back into order
//   all_to_all       S(a) -> S(b): pad a to ceil(La/n) and b to ceil(Lb/n)*n when uneven,
//                    shard_dim_alltoall(gather a, shard b), trim a to La and b to this rank's
//                    torch.chunk length; with a _StridedShard on either side: gather to R, then
//                    split (rows 12, 13, 15)
// g is the rank's index in its group: its coordinate on the mesh dim, or for a flattened step the
// position in the flattened mesh's group (row-major over the merged dims).
//
// The executor trusts the plan's steps, not its claims: states are re-derived from plan.start by
// apply_transform (so a hand-built plan whose merged step the rules would refuse still runs, and
// produces whatever that step computes), and nothing is checked against plan.dst here (verify.h
// does that).

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/result.h"
#include "mesh/device_mesh.h"
#include "redist/redist_plan.h"
#include "sim/process_group.h"
#include "sim/rank_tensors.h"

namespace dtplan::sim {

class RedistExecutor {
 public:
  // Rebuilds the plan's mesh (build_described_mesh), the groups of every step (a flattened step:
  // the groups of the flattened mesh it names) and the state before every step.
  // @post errors (kBadInput) name the step: an unknown flattened mesh, one whose ranks are not
  //   the merged dims' groups, a step apply_transform rejects.
  static core::Result<RedistExecutor> create(const redist::RedistPlan& plan);

  // Runs every step in order. @pre tensors.world_size() >= world_size().
  // On error the store may hold a mix of states (the failing step names itself).
  core::Status run(ProcessGroup& pg, RankTensors& tensors) const;
  // Runs step `index` only (steps must run in order).
  core::Status run_step(ProcessGroup& pg, std::size_t index, RankTensors& tensors) const;

  [[nodiscard]] const redist::RedistPlan& plan() const { return plan_; }
  [[nodiscard]] const mesh::DeviceMesh& mesh() const { return mesh_; }
  [[nodiscard]] std::size_t num_steps() const { return steps_.size(); }
  // One more than the largest rank of the mesh: the smallest world that runs the plan.
  [[nodiscard]] std::int64_t world_size() const { return world_; }
  // The ranks of the mesh, ascending.
  [[nodiscard]] const std::vector<std::int64_t>& ranks() const { return ranks_; }
  // The rank's mesh coordinate, or nullopt outside the mesh.
  [[nodiscard]] std::optional<std::vector<std::int64_t>> coordinate(std::int64_t rank) const;
  // Every group of step `index`, in the order every rank creates them.
  [[nodiscard]] const std::vector<Group>& groups(std::size_t index) const {
    return steps_[index].groups;
  }
  // The state before step `index` (index == num_steps(): after the last).
  [[nodiscard]] const redist::RedistState& state_before(std::size_t index) const {
    return states_[index];
  }

 private:
  struct Step {
    std::vector<Group> groups;
    std::vector<std::int32_t> index_in_group;  // by rank; -1 outside the mesh
  };

  RedistExecutor(redist::RedistPlan plan, mesh::DeviceMesh mesh)
      : plan_(std::move(plan)), mesh_(std::move(mesh)) {}

  redist::RedistPlan plan_;
  mesh::DeviceMesh mesh_;
  std::int64_t world_ = 0;
  std::vector<std::int64_t> ranks_;
  std::vector<std::vector<std::int64_t>> coords_;  // by rank; empty outside the mesh
  std::vector<Step> steps_;
  std::vector<redist::RedistState> states_;  // steps_.size() + 1
};

}  // namespace dtplan::sim
