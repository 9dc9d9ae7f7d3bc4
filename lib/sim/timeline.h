#pragma once
// The step simulator: a discrete-event timeline of one training step of a whole-model plan on
// every rank of its mesh (the fake process group's world): per rank a compute stream and one
// communication stream per process group kind, dependencies from the plan (step_program.h),
// collectives that start when every member of their group is ready (a collective synchronises
// its group), FSDP-style prefetch of parameter all-gathers, gradient reduce-scatters issued as
// soon as the gradient exists, and contention between concurrent collectives that share a NIC
// or an NVLink port (link_sharing.h).
//
//   auto tl = simulate_step(plan, {.prefetch_depth = 1}).value();
//   tl.step_time_us;                 // the last task's end over all ranks
//   tl.exposed_communication_us;     // on the critical rank: comm while compute was idle
//   tl.critical_path;                // the chain of tasks that fixed the step time
//
// Exactness: every rank is simulated (no sampling), so asymmetric groups, straggling groups and
// uneven contention are exact under the model; ranks that a symmetry of the mesh makes alike are
// simulated once and take their representative's times (rank_symmetry.h, the same figures and
// events; TimelineOptions::symmetry); events are kept for representative ranks only
// (TimelineOptions). Deterministic: events are processed by (time, creation order) and the
// outputs are sorted by written keys.

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "plan/plan.h"
#include "sim/step_program.h"
#include "sim/timeline_options.h"

namespace dtplan::sim {

// One task on one rank. A collective runs from the moment its whole group is ready (the wait
// for late members is idle time, not part of the event) until it completes.
struct TimelineEvent {
  std::int64_t rank = 0;  // global rank
  std::int32_t task = 0;  // index in Timeline::program.tasks
  double start_us = 0;
  double end_us = 0;
  bool operator==(const TimelineEvent&) const = default;
};

// Per-rank figures; busy times are sums of event durations (a stream runs one task at a time).
struct RankSummary {
  std::int64_t rank = 0;
  double end_us = 0;                    // when its last task ended
  double compute_busy_us = 0;           // the compute stream (ops and local-only chains)
  double communication_busy_us = 0;     // union of the communication streams' busy time
  double exposed_communication_us = 0;  // communication while the compute stream was idle
  double idle_us = 0;                   // end_us - compute_busy - exposed: waiting on peers
  std::vector<double> stream_busy_us;   // per stream
  bool operator==(const RankSummary&) const = default;
};

// How a critical-path entry was held up by the entry before it.
enum class Binding : std::uint8_t {
  kStart,   // started at time 0
  kData,    // waited for a producer (an op or the previous step of its chain)
  kStream,  // waited for the task before it on its stream
  kGate,    // waited for its prefetch gate op
};

// "start", "data", "stream", "gate".
std::string_view binding_name(Binding binding);

struct PathEntry {
  std::int32_t task = 0;
  std::int64_t rank = 0;  // the rank it ran on (a collective: the member that arrived last)
  double start_us = 0;
  double end_us = 0;
  Binding binding = Binding::kStart;
  bool operator==(const PathEntry&) const = default;
};

struct Timeline {
  StepProgram program;
  double step_time_us = 0;
  std::int64_t critical_rank = 0;  // the rank whose last task ends last (lowest on ties)
  // Of the critical rank:
  double compute_us = 0;
  double communication_us = 0;
  double exposed_communication_us = 0;
  std::vector<RankSummary> ranks;         // every rank, ascending (step_only: the critical one)
  std::vector<PathEntry> critical_path;   // in time order
  std::vector<std::int64_t> event_ranks;  // ranks whose events are kept, ascending
  std::vector<TimelineEvent> events;      // by (rank, stream, start, task)
  std::int64_t simulated_tasks = 0;       // (rank, task) pairs simulated (one rank per class)
  bool operator==(const Timeline&) const = default;
};

// Simulates one step of `plan`.
// @post error (kBadInput) from build_step_program; (kUnsupported) when tasks x ranks exceeds
//   options.max_rank_tasks, naming both (step_only: tasks x the ranks simulated, one per class
//   of alike ranks); step_time_us >= the compute stream's busy time of
//   every rank; with no redistributions step_time_us == the sum of compute_us.
core::Result<Timeline> simulate_step(const plan::Plan& plan, const TimelineOptions& options);

}  // namespace dtplan::sim
