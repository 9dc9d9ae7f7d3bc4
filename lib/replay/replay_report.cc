#include "replay/replay_report.h"

namespace dtplan::replay {

double relative_error(double predicted_us, double measured_us) {
  if (measured_us <= 0) return 0;
  return (predicted_us - measured_us) / measured_us;
}

ReplayEntry make_entry(CollectiveJob job, const CallTiming& timing, const CallCheck& check) {
  ReplayEntry e;
  e.measured_us = timing.median_us;
  e.min_us = timing.min_us;
  e.max_us = timing.max_us;
  e.predicted_busbw_gbps =
      busbw_gbps(job.collective, job.group_size, algbw_gbps(job.nccl_bytes, job.predicted_us));
  e.measured_busbw_gbps =
      busbw_gbps(job.collective, job.group_size, algbw_gbps(job.nccl_bytes, timing.median_us));
  e.error = relative_error(job.predicted_us, timing.median_us);
  e.check = check;
  e.job = std::move(job);
  return e;
}

ReplayTotals totals_of(const std::vector<ReplayEntry>& entries) {
  ReplayTotals t;
  for (const ReplayEntry& e : entries) {
    const auto count = static_cast<double>(e.job.count);
    t.predicted_us += count * e.job.predicted_us;
    t.measured_us += count * e.measured_us;
  }
  t.error = relative_error(t.predicted_us, t.measured_us);
  return t;
}

ComputeEntry make_compute_entry(GemmJob job, const TimingStats& stats) {
  ComputeEntry e;
  e.measured_us = stats.median_us;
  e.min_us = stats.min_us;
  e.max_us = stats.max_us;
  e.error = relative_error(job.predicted_us, stats.median_us);
  const double flops =
      2.0 * static_cast<double>(job.m) * static_cast<double>(job.n) * static_cast<double>(job.k);
  e.measured_tflops = stats.median_us > 0 ? flops / (stats.median_us * 1e6) : 0;
  e.job = std::move(job);
  return e;
}

void add_plan_verify(ReplayVerify& verify, const PlanVerify& plan) {
  if (plan.skipped) {
    ++verify.skipped;
    return;
  }
  ++verify.redistributions;
  verify.elements += plan.elements;
  verify.wrong_elements += plan.wrong_elements;
  verify.fake_mismatches += plan.fake_mismatches;
  verify.replica_sets += plan.replica_sets;
  verify.differing_replica_sets += plan.differing_replica_sets;
  verify.replicas_bitwise_equal = verify.differing_replica_sets == 0;
}

}  // namespace dtplan::replay
