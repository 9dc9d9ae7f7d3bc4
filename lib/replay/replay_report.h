#pragma once
// ReplayReport: what `dtplan replay` measured, as it prints it and writes it (--out, JSON in
// replay_report_io.h) and as `dtplan calibrate --replay` reads it back. One entry per distinct
// collective of the plan (collective_jobs.h) with the plan's prediction next to the measurement
// in nccl-tests units (timing.h), the data check of that collective (call_check.h), totals over
// the plan (each entry weighted by how often the plan runs it), and where it ran.
//
//   entry: all_reduce(sum) on A,C (4 ranks, 1 node x 4), f32, S 16384 B, x1:
//          predicted 12.3 us, measured 41.0 us, error -0.70, busbw 2.0 / 0.6 GB/s, 0 wrong
//
// error = (predicted - measured) / measured: -0.5 means the plan predicted half the measured time.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "replay/call_check.h"
#include "replay/collective_jobs.h"
#include "replay/plan_gemms.h"
#include "replay/plan_verify.h"
#include "replay/timing.h"

namespace dtplan::replay {

struct ReplayEntry {
  CollectiveJob job;
  double measured_us = 0;  // median over the timed iterations (slowest process each)
  double min_us = 0;
  double max_us = 0;
  double predicted_busbw_gbps = 0;
  double measured_busbw_gbps = 0;
  double error = 0;  // (predicted - measured) / measured; 0 when measured is 0
  CallCheck check;
  bool operator==(const ReplayEntry&) const = default;
};

struct ReplayTotals {
  double predicted_us = 0;  // sum of count x predicted_us
  double measured_us = 0;   // sum of count x measured_us
  double error = 0;
  bool operator==(const ReplayTotals&) const = default;
};

// The data verification of the whole run: every redistribution run end to end by the executor
// on the backend (plan_verify.h), summed, and the per-collective checks (call_check.h) summed.
struct ReplayVerify {
  std::int64_t ranks = 0;
  std::int64_t redistributions = 0;  // verified end to end
  std::int64_t skipped = 0;          // too large for the in-process fake, or no checkable values
  std::int64_t elements = 0;         // destination elements checked, over all ranks
  std::int64_t wrong_elements = 0;   // against the expected shards
  std::int64_t fake_mismatches = 0;  // elements that differ from the fake process group's run
  bool replicas_bitwise_equal = true;
  std::int64_t replica_sets = 0;
  std::int64_t differing_replica_sets = 0;
  std::int64_t collective_elements = 0;  // the per-collective checks against the fake
  std::int64_t collective_wrong_elements = 0;
  bool operator==(const ReplayVerify&) const = default;
};

// One timed GEMM of --compute: the slowest process's median of cuBLAS runs, against the plan's
// roofline time of the op.
struct ComputeEntry {
  GemmJob job;
  double measured_us = 0;
  double min_us = 0;
  double max_us = 0;
  double error = 0;            // (predicted - measured) / measured
  double measured_tflops = 0;  // 2 m n k / measured time, 1e12 FLOP/s
  bool operator==(const ComputeEntry&) const = default;
};

struct ComputeReport {
  std::vector<ComputeEntry> entries;
  std::int64_t skipped = 0;  // matmul-family ops of another form (plan_gemms.h)
  bool operator==(const ComputeReport&) const = default;
};

struct ReplayReport {
  std::string plan;  // the plan file
  PlanKind kind = PlanKind::kRedistribute;
  std::string model;
  std::string backend;   // "fake", "mpi", "nccl"
  std::string launcher;  // launch.h's launcher_name
  std::int64_t world = 0;
  std::int64_t processes = 1;
  std::string hardware;  // the plan's hardware profile
  std::int64_t gpus_per_node = 1;
  TimingOptions timing;
  std::vector<ReplayEntry> entries;
  ReplayTotals totals;
  ReplayVerify verify;
  std::optional<ComputeReport> compute;  // with --compute
  bool operator==(const ReplayReport&) const = default;
};

// (predicted - measured) / measured, 0 when measured <= 0.
double relative_error(double predicted_us, double measured_us);

// The entry of `job` from its timing and check (busbw from S and each time).
ReplayEntry make_entry(CollectiveJob job, const CallTiming& timing, const CallCheck& check);

// Totals of `entries`.
ReplayTotals totals_of(const std::vector<ReplayEntry>& entries);

// The entry of a timed GEMM.
ComputeEntry make_compute_entry(GemmJob job, const TimingStats& stats);

// Adds one redistribution's verification to `verify`.
void add_plan_verify(ReplayVerify& verify, const PlanVerify& plan);

}  // namespace dtplan::replay
