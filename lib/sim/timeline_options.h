#pragma once
// TimelineOptions: what the step simulator (timeline.h) may be told besides the plan.
//
//   TimelineOptions opts;
//   opts.prefetch_depth = 2;                       // FSDP-style: all-gather 2 blocks ahead
//   opts.hardware = profile;                       // NICs per node, latency split of collectives
//   opts.trace_ranks = 4;                          // events kept for 4 representative ranks
//
// Without a hardware profile every GPU has its own NIC (a rail-optimised fabric), a
// collective's whole time is bandwidth time (contention stretches all of it) and compute is not
// slowed by concurrent collectives.

#include <cstdint>
#include <optional>

#include "cost/hardware.h"

namespace dtplan::sim {

// The most (rank, task) pairs one simulation holds (two doubles and a counter each, about 26 B
// with the engine's other arrays: 2^26 pairs take about 1.7 GB): plans whose tasks x ranks exceed
// it are refused (kUnsupported) instead of exhausting memory. LLaMA3-70B (80 layers, ~23k tasks)
// on 1,024 ranks is 2^24.5 pairs: simulated in about 9 s and 0.6 GB.
inline constexpr std::int64_t kDefaultMaxRankTasks = std::int64_t{1} << 26;

struct TimelineOptions {
  // How many blocks ahead a parameter all-gather may be issued (FSDP2's prefetch, counted in
  // blocks: maximal runs of ops with the same phase and layer). 0: when the compute stream
  // reaches the consuming block; negative: no bound (as soon as the parameter is ready).
  std::int32_t prefetch_depth = 1;
  // Concurrent collectives that share a NIC or a GPU's NVLink slow each other (link_sharing.h).
  bool contention = true;
  // NICs per node, the latency / bandwidth split of each collective (cost model), and the
  // compute speed while a collective runs (compute.nccl_overlap_compute_factor, step_engine.h).
  std::optional<cost::HardwareProfile> hardware;
  // Events are kept for every rank (all_ranks) or for the lowest rank of each of the first
  // `trace_ranks` classes of ranks with identical summaries, plus the critical rank.
  bool all_ranks = false;
  std::int32_t trace_ranks = 4;
  std::int64_t max_rank_tasks = kDefaultMaxRankTasks;
  // Ranks that a symmetry of the mesh makes alike (rank_symmetry.h: on 8x16x8 with 8 GPUs per
  // node, the 128 ranks of each local GPU index) are simulated once. Off: every rank, as a check.
  bool symmetry = true;
  // The step's figures only (what a sweep ranks by): Timeline::ranks holds the critical rank's
  // summary alone, with no critical path and no events. The figures equal the full run's.
  bool step_only = false;
};

}  // namespace dtplan::sim
