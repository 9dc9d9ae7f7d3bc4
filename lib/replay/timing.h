#pragma once
// The timing harness: measures collective calls on any ReplayGroup the way nccl-tests measures
// collectives (docs/reference/collectives.md §1.1), and reports them in its units.
//
// Method: `warmup_iters` untimed iterations, then `iters` timed ones. Every iteration starts from
// a fresh copy of the inputs (made before the clock), enters a world barrier, and runs the call
// `launches_per_iter` times back to back (ReplayGroup::run_timed); its sample is the elapsed time
// divided by the launches. A sample is then the maximum over the processes of the world (the
// slowest member bounds the collective), and the call's time is the median of the samples, with
// their minimum and maximum. nccl-tests instead averages one batch of launches and averages that
// over ranks; the median of barrier-separated samples is robust to stragglers and noise, and
// launches_per_iter > 1 recovers nccl-tests' pipelined small-message regime.
//
// Units (nccl-tests): S in bytes as collective.h defines it (all_gather: the total output,
// reduce_scatter: the total input, all_to_all: one rank's send buffer, the others: the buffer);
// algbw = S / t and busbw = algbw x bus factor (2(n-1)/n for all_reduce, (n-1)/n for all_gather,
// reduce_scatter and all_to_all, 1 for broadcast), both in GB/s = 1e9 B/s.
//   all_reduce of S = 1 GB on 8 ranks in 1000 us: algbw 1000 GB/s, busbw 1750 GB/s.

#include <cstdint>
#include <vector>

#include "collective/collective.h"
#include "core/result.h"
#include "replay/replay_group.h"

namespace dtplan::replay {

struct TimingOptions {
  int warmup_iters = 5;
  int iters = 20;
  int launches_per_iter = 1;
  bool operator==(const TimingOptions&) const = default;
};

struct TimingStats {
  double median_us = 0;  // the middle sample; the mean of the two middle ones for an even count
  double min_us = 0;
  double max_us = 0;
  bool operator==(const TimingStats&) const = default;
};

// Example: timing_stats({4, 1, 3, 2}) == {2.5, 1, 4}.
// @post error (kBadInput) for no samples or a negative or non-finite sample.
core::Result<TimingStats> timing_stats(std::vector<double> samples_us);

// S / t in GB/s: bytes / (time_us x 1e3). 0 when time_us <= 0 (too fast to measure).
// Example: algbw_gbps(1'000'000'000, 1000.0) == 1000.0.
double algbw_gbps(std::int64_t bytes, double time_us);

// algbw x collective::bus_factor(collective, n). Example: busbw_gbps(kAllReduce, 8, 1000) == 1750.
double busbw_gbps(collective::Collective collective, std::int64_t n, double algbw_gbps);

// One timed collective call.
struct CallTiming {
  collective::Collective collective = collective::Collective::kAllReduce;
  std::int64_t group_size = 0;
  std::int64_t bytes = 0;  // S: the largest over the call's groups
  double median_us = 0;
  double min_us = 0;
  double max_us = 0;
  double algbw_gbps = 0;  // from the median
  double busbw_gbps = 0;
  bool operator==(const CallTiming&) const = default;
};

// Times `call` on `pg` with `inputs` (the tensors of the ranks this process holds; unchanged).
// Collective on every process of the world (barriers, reduce_over_world).
// Errors: the call's own errors (validate_call, the backend's run), options outside
// warmup_iters >= 0, iters >= 1, launches_per_iter >= 1 (kBadInput), groups of different sizes
// (kUnsupported: one call is one group size in nccl-tests' terms).
core::Result<CallTiming> time_call(ReplayGroup& pg, const CollectiveCall& call,
                                   const RankTensors& inputs, const TimingOptions& options = {});

}  // namespace dtplan::replay
