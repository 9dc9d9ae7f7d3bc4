#pragma once
// Runs a plan on a replay backend: first every redistribution end to end with the executor,
// verified against the expected shards and the fake process group (plan_verify.h); then for every
// distinct collective (collective_jobs.h), in plan order, the data check of that call against the
// fake (call_check.h) and the nccl-tests-style timing (timing.h) on the same inputs; the report
// pairs each measurement with the plan's prediction. With `compute`, every distinct local GEMM of
// the plan is then timed on each process's GPU (warm-up and iterations as the collectives; the
// slowest process's median) against the op's roofline compute time. Every process of the world runs
// it (SPMD: the same jobs in the same order); every process gets the same report.
//
//   auto pg = open_mpi_group().value();                 // under mpirun -np 8
//   ReplayReport r = run_replay(*pg, source, {}).value();
//   r.entries[0].measured_us; r.verify.wrong_elements == 0

#include "core/result.h"
#include "replay/replay_group.h"
#include "replay/replay_report.h"
#include "replay/replay_source.h"

namespace dtplan::replay {

struct ReplayOptions {
  TimingOptions timing;
  bool check = true;                                     // run the data check of every collective
  std::int64_t check_max_bytes = std::int64_t{1} << 30;  // per process (call_check.h)
  bool verify = true;  // run and verify every redistribution end to end
  PlanVerifyOptions plan_verify;
  // Time the plan's GEMMs (plan_gemms.h) with cuBLAS on this process's GPU (time_gemm).
  bool compute = false;
  int gemm_device = 0;
};

// Errors: the world does not have the plan's ranks (kBadInput: "the plan's mesh has 8 ranks, the
// mpi world 4"), a job the plan does not describe consistently (collect_jobs), a backend failure
// (the call's error, with the job's first use as context), time_gemm's (kBackendMissing without
// CUDA or a GPU). The report's plan, launcher and
// processes fields are left for the caller.
core::Result<ReplayReport> run_replay(ReplayGroup& pg, const ReplaySource& source,
                                      const ReplayOptions& options);

}  // namespace dtplan::replay
