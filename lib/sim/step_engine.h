#pragma once
// StepEngine: the discrete-event core of the step simulator (timeline.h). It runs a StepProgram
// on every rank slot and records when each (slot, task) started and ended.
//
// Rules: a task is ready on a rank when its deps and its stream predecessor have ended there
// (prefetch gates are deps). A compute or local task starts when ready and lasts alone_us. A
// collective instance (one group of its partition) starts when all its members are ready, holds
// for latency_us, then progresses through its bandwidth part at the rate of link_sharing.h,
// re-rated whenever another instance on one of its links starts or ends its bandwidth part; it
// ends on all members at once. SM sharing: while at least one collective instance of a rank runs
// (from its start to its end), that rank's compute-stream tasks progress at
// overlap_compute_factor (an NCCL kernel holds SMs and HBM bandwidth; the profile's
// compute.nccl_overlap_compute_factor), re-rated whenever that changes; 1 leaves compute alone.
// Events are processed by (time, creation order).

#include <cstdint>
#include <vector>

#include "core/result.h"
#include "sim/link_sharing.h"
#include "sim/step_program.h"

namespace dtplan::sim {

struct EngineRun {
  std::int32_t tasks = 0;  // per slot
  std::int32_t slots = 0;
  // Task-major: (slot, task) is at at(slot, task) = task * slots + slot (the engine ends a task
  // on many slots at once; slot-major stores missed the cache on every one).
  std::vector<double> start_us;
  std::vector<double> end_us;
  [[nodiscard]] std::size_t at(std::size_t slot, std::size_t task) const {
    return task * static_cast<std::size_t>(slots) + slot;
  }
  std::int64_t events = 0;  // heap events processed (stale re-rates included)
  bool operator==(const EngineRun&) const = default;
};

// The stream predecessor of every task (-1 for the first on its stream).
std::vector<std::int32_t> stream_predecessors(const StepProgram& program);

// @post error (kUnsupported) when the program's slots x tasks exceed max_rank_tasks.
core::Status check_rank_tasks(const StepProgram& program, std::int64_t max_rank_tasks);

// Runs the program. `contention` false: every instance takes latency + bandwidth time alone.
// @post error (kUnsupported) when slots x tasks exceeds max_rank_tasks; (kInternal) if a task
//   never ran (a dependency cycle, which build_step_program's issue order rules out).
// overlap_compute_factor in (0, 1]: the compute speed under a concurrent collective.
core::Result<EngineRun> run_step_engine(const StepProgram& program, const LinkMap& links,
                                        bool contention, std::int64_t max_rank_tasks,
                                        double overlap_compute_factor = 1.0);

}  // namespace dtplan::sim
