#include "replay/timing.h"

#include <algorithm>
#include <cmath>

namespace dtplan::replay {

namespace {

// Doubles carry integers exactly up to 2^53; S travels through reduce_over_world as one.
constexpr std::int64_t kExactDoubleLimit = std::int64_t{1} << 53;

// S of the groups this process holds a member of (0 when it holds none): the largest S of those
// groups, from the member's tensor.
core::Result<std::int64_t> local_nccl_bytes(const CollectiveCall& call, const RankTensors& inputs) {
  std::int64_t bytes = 0;
  for (const Group& group : call.groups) {
    const auto n = static_cast<std::int64_t>(group.size());
    for (std::int64_t rank : group) {
      if (!inputs.has(rank)) continue;
      const sim::Tensor& t = inputs.at(rank);
      std::int64_t rank_bytes = t.nbytes();
      if (call.collective == collective::Collective::kReduceScatter) rank_bytes /= n;
      DTPLAN_TRY(std::int64_t s, collective::nccl_size_from_rank_bytes(
                                     call.collective, rank_bytes, n, sim::describe(call) + ": S"));
      bytes = std::max(bytes, s);
      break;  // the members of one group share a shape
    }
  }
  if (bytes >= kExactDoubleLimit) {
    return core::Error::unsupported(sim::describe(call) + ": S = " + std::to_string(bytes) +
                                    " bytes is too large to time (at most 2^53)");
  }
  return bytes;
}

core::Status check_options(const TimingOptions& o) {
  if (o.warmup_iters < 0 || o.iters < 1 || o.launches_per_iter < 1) {
    return core::Error::bad_input(
        "timing options: need warmup_iters >= 0, iters >= 1 and launches_per_iter >= 1, got " +
        std::to_string(o.warmup_iters) + ", " + std::to_string(o.iters) + " and " +
        std::to_string(o.launches_per_iter));
  }
  return {};
}

}  // namespace

core::Result<TimingStats> timing_stats(std::vector<double> samples_us) {
  if (samples_us.empty()) return core::Error::bad_input("timing: no samples");
  for (double s : samples_us) {
    if (!std::isfinite(s) || s < 0) {
      return core::Error::bad_input("timing: sample " + std::to_string(s) +
                                    " us is negative or not finite");
    }
  }
  std::sort(samples_us.begin(), samples_us.end());
  const std::size_t n = samples_us.size();
  const double median =
      n % 2 == 1 ? samples_us[n / 2] : (samples_us[n / 2 - 1] + samples_us[n / 2]) / 2;
  return TimingStats{median, samples_us.front(), samples_us.back()};
}

double algbw_gbps(std::int64_t bytes, double time_us) {
  if (time_us <= 0) return 0;
  return static_cast<double>(bytes) / (time_us * 1e3);
}

double busbw_gbps(collective::Collective collective, std::int64_t n, double algbw_gbps) {
  return algbw_gbps * collective::bus_factor(collective, n);
}

core::Result<CallTiming> time_call(ReplayGroup& pg, const CollectiveCall& call,
                                   const RankTensors& inputs, const TimingOptions& options) {
  DTPLAN_CHECK(check_options(options));
  DTPLAN_CHECK(sim::validate_call(call, pg.world_size()));
  const auto n = static_cast<std::int64_t>(call.groups[0].size());
  for (const Group& g : call.groups) {
    if (static_cast<std::int64_t>(g.size()) != n) {
      return core::Error::unsupported(sim::describe(call) +
                                      ": timing needs groups of one size, got " +
                                      std::to_string(n) + " and " + std::to_string(g.size()));
    }
  }
  DTPLAN_TRY(std::int64_t bytes, local_nccl_bytes(call, inputs));

  std::vector<double> samples;  // then S, so that one world reduction carries both
  samples.reserve(static_cast<std::size_t>(options.iters) + 1);
  for (int i = 0; i < options.warmup_iters + options.iters; ++i) {
    RankTensors work = inputs;
    DTPLAN_CHECK(pg.barrier());
    core::Result<double> us = pg.run_timed(call, work, options.launches_per_iter);
    // A failure reaches every process (processes outside the failing group would otherwise wait
    // in the next barrier for members that have returned).
    DTPLAN_TRY(std::vector<double> failed,
               pg.reduce_over_world({us.ok() ? 0.0 : 1.0}, ReduceOp::kMax));
    if (!us.ok()) return std::move(us).error();
    if (failed.size() != 1 || failed[0] != 0) {
      return core::Error::internal(sim::describe(call) + ": another process failed this call");
    }
    if (i >= options.warmup_iters) samples.push_back(us.value() / options.launches_per_iter);
  }
  samples.push_back(static_cast<double>(bytes));
  const std::size_t count = samples.size();
  DTPLAN_TRY(std::vector<double> worst, pg.reduce_over_world(std::move(samples), ReduceOp::kMax));
  if (worst.size() != count) {
    return core::Error::internal(std::string(pg.backend_name()) + ": reduce_over_world returned " +
                                 std::to_string(worst.size()) + " values for " +
                                 std::to_string(count));
  }
  bytes = static_cast<std::int64_t>(worst.back());
  worst.pop_back();
  DTPLAN_TRY(TimingStats stats, timing_stats(std::move(worst)));

  CallTiming out;
  out.collective = call.collective;
  out.group_size = n;
  out.bytes = bytes;
  out.median_us = stats.median_us;
  out.min_us = stats.min_us;
  out.max_us = stats.max_us;
  out.algbw_gbps = algbw_gbps(bytes, stats.median_us);
  out.busbw_gbps = busbw_gbps(call.collective, n, out.algbw_gbps);
  return out;
}

}  // namespace dtplan::replay
