#pragma once
// StepProgram: one training step of a plan::Plan as the tasks every rank runs. The plan is SPMD,
// so there is one program; ranks differ only in the process groups they belong to.
//
// Streams (per rank): `compute` runs every op in plan order; one communication stream per
// process group kind, i.e. per mesh dim ("comm:tp") and per flattened mesh ("comm:dp_tp"), as
// ProcessGroupNCCL runs every collective of one communicator on its own NCCL stream (FSDP2's
// all-gather and reduce-scatter on the dp group therefore queue behind each other). Every
// stream is in order: a task starts after the task issued before it on that stream.
//
// Tasks, in issue order (the order of `tasks`, a topological order of every dependency), for
// each of the plan's microbatches in turn (plan.training.grad_accum; with more than one, task
// names start "mb<m>."):
//   - op i (kCompute, stream compute, alone_us = compute_us, or under async TP a fused matmul's
//     share of its fused op's time, plan/fused_matmul.h): after its producers, or after the
//     last step of the redistribution on each input slot that has one;
//   - op i again (name "<op>:recompute") when its schedule is kRecompute: issued after the op
//     just before its layer's first backward op, or earlier where a backward op or another
//     recomputation reads it sooner (its recompute point), reading its inputs' saved or
//     recomputed values; backward ops read the recomputed value;
//   - each step of a redistribution (consumer c, slot s, producer p), in step order: a
//     collective on the stream of its mesh dims / flattened mesh (steps on one-rank groups are
//     skipped, as PyTorch skips them, and so are the steps a fused matmul absorbs: their peer
//     copies are inside its matmuls' time); a local step (chunk, partition) on the stream of the
//     next collective of its chain, else the previous one; a chain of local steps only runs on the
//     compute stream just before its consumer. The chain is issued as soon as p's value exists
//     (the gradient reduce-scatters overlap the rest of the backward), for a recomputation not
//     before its recompute point; a chain whose producer is parameter-derived (a parameter, or
//     an op whose inputs all are) is prefetchable: it is issued after op gate(b - D) instead,
//     where b is the block the consumer runs in (a recomputation's: its layer's first backward
//     block), D the prefetch depth and gate(k) the op just before block k (none when b - D < 0
//     or D < 0). Blocks are the maximal runs of consecutive non-placeholder ops with equal
//     (phase, layer). A recomputed consumer's chain runs again for the recomputation ("<op>:
//     recompute[s]..."); a gradient reduction that runs once per step (plan/step_runs.h) is
//     issued in the last microbatch only, earlier ones read the producer directly.
// Issue keys (microbatch, point, consumer, copy, slot, step): op i (m, 2i, i, 0, max, 0); its
// recomputation (m, 2r + 1, i, 1, max, 0) with r its recompute point; a chain issued after op
// k (m, 2k + 1, c, copy, s, step); a local-only chain (m, 2c, c, 0, s, step), or (m, 2r + 1, c,
// 1, s, step) for a recomputation. Sorting by key orders every task after its dependencies, so
// no stream can deadlock.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "collective/collective.h"
#include "core/result.h"
#include "cost/group_topology.h"
#include "plan/plan.h"
#include "sim/timeline_options.h"

namespace dtplan::sim {

enum class TaskKind : std::uint8_t { kCompute, kCollective, kLocal };

// "compute", "collective", "local".
std::string_view task_kind_name(TaskKind kind);

struct StreamInfo {
  std::string name;                     // "compute", "comm:tp", "comm:dp_tp"
  std::vector<std::int32_t> mesh_dims;  // empty for compute
  std::string flattened;                // the flattened mesh, "" otherwise
  bool operator==(const StreamInfo&) const = default;
};

// The process groups of one mesh dim or dim set; ranks are slots (see StepProgram::ranks).
struct GroupPartition {
  std::vector<std::int32_t> mesh_dims;  // ascending
  std::string flattened;
  std::int64_t size = 1;               // ranks per group
  std::vector<std::int32_t> group_of;  // per slot: its group
  std::vector<std::int32_t> members;   // group g: members[g * size .. (g + 1) * size), ascending
  std::vector<cost::GroupTopology> topologies;  // per group
  [[nodiscard]] std::int32_t groups() const {
    return static_cast<std::int32_t>(group_of.size() / static_cast<std::size_t>(size));
  }
  // The members of group g (ascending slots).
  [[nodiscard]] std::span<const std::int32_t> group(std::int32_t g) const {
    const auto n = static_cast<std::size_t>(size);
    return {members.data() + static_cast<std::size_t>(g) * n, n};
  }
  bool operator==(const GroupPartition&) const = default;
};

struct Task {
  TaskKind kind = TaskKind::kCompute;
  std::int32_t stream = 0;
  std::string name;      // the op's name; "<consumer>[slot].<step>:<collective or local op>"
  std::int32_t op = -1;  // the op, or the consuming op of a redistribution step
  std::int32_t redistribution = -1;  // index in plan.redistributions (steps only)
  std::int32_t slot = -1;
  std::int32_t step = -1;       // index in the redistribution's steps
  bool prefetched = false;      // its chain's producer is parameter-derived (the prefetch rule)
  double alone_us = 0;          // duration without contention
  double latency_us = 0;        // collectives: the part contention does not stretch
  std::int32_t partition = -1;  // collectives: index in StepProgram::partitions
  std::optional<collective::Collective> collective;
  std::int64_t bytes = 0;          // the step's per-rank buffer (collective.h convention)
  std::vector<std::int32_t> deps;  // tasks it waits for, by input slot (then the prefetch gate)
  std::int32_t gate = -1;          // the prefetch gate op's task, also listed last in deps
  bool operator==(const Task&) const = default;
};

struct StepProgram {
  std::vector<std::int64_t> ranks;  // the global rank of each slot, ascending
  std::int64_t gpus_per_node = 1;
  std::vector<StreamInfo> streams;  // compute first, then mesh dims ascending, then flattened
  std::vector<GroupPartition> partitions;
  std::vector<Task> tasks;            // in issue order
  std::vector<std::int32_t> op_task;  // op index -> its task in the first microbatch
  // Per mesh dim: slot -> the slot one coordinate further along the dim, cyclically (the
  // candidate symmetries of the simulation, rank_symmetry.h).
  std::vector<std::vector<std::int32_t>> shifts;
  bool operator==(const StepProgram&) const = default;
};

// Lowers a plan to its step program. Uses options.prefetch_depth and options.hardware (the
// latency part of each collective: the cost model's latency share of the collective's time on
// its slowest group topology, applied to the step's planned cost_us).
// @post error (kBadInput, naming the op, redistribution or step) for inputs that are not
//   earlier ops, redistributions that do not match their consumer's slot, steps whose mesh dims
//   or flattened mesh the plan's mesh lacks or whose group_size differs from it, negative or
//   non-finite costs; errors of redist::build_described_mesh for the mesh.
core::Result<StepProgram> build_step_program(const plan::Plan& plan,
                                             const TimelineOptions& options);

}  // namespace dtplan::sim
