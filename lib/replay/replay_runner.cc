#include "replay/replay_runner.h"

#include <set>

#include "replay/backends.h"

namespace dtplan::replay {

namespace {

// The inputs of the held members of the job's groups.
core::Result<RankTensors> held_inputs(const ReplayGroup& pg, const CollectiveJob& job) {
  const std::vector<std::int64_t> held = pg.held_ranks();
  const std::set<std::int64_t> held_set(held.begin(), held.end());
  RankTensors inputs(pg.world_size());
  const sim::Shape shape = job_input_shape(job);
  for (const sim::Group& g : job.groups) {
    for (std::int64_t r : g) {
      if (held_set.count(r) == 0) continue;
      DTPLAN_TRY(sim::Tensor t, fill_input(job.dtype, shape, r));
      inputs.set(r, std::move(t));
    }
  }
  return inputs;
}

// Times every GEMM job on this process's GPU; the slowest process's statistics.
core::Result<ComputeReport> time_gemms(ReplayGroup& pg, const ReplaySource& source,
                                       const ReplayOptions& options) {
  const PlanGemms gemms = plan_gemms(source);
  ComputeReport out;
  out.skipped = gemms.skipped;
  const GemmOptions gemm{options.gemm_device, options.timing.warmup_iters, options.timing.iters};
  for (const GemmJob& job : gemms.jobs) {
    auto stats = time_gemm(job.m, job.n, job.k, job.dtype, gemm);
    // Every process learns whether any failed before the next collective call.
    DTPLAN_TRY(std::vector<double> failed,
               pg.reduce_over_world({stats.ok() ? 0.0 : 1.0}, ReduceOp::kMax));
    if (!stats.ok()) return stats.error().with_context("--compute: op '" + job.name + "'");
    if (failed.size() != 1 || failed[0] != 0) {
      return core::Error::internal("--compute: op '" + job.name + "' failed on another process");
    }
    DTPLAN_TRY(
        std::vector<double> worst,
        pg.reduce_over_world({stats->median_us, stats->min_us, stats->max_us}, ReduceOp::kMax));
    if (worst.size() != 3) return core::Error::internal("--compute: reduce_over_world count");
    out.entries.push_back(make_compute_entry(job, {worst[0], worst[1], worst[2]}));
  }
  return out;
}

}  // namespace

core::Result<ReplayReport> run_replay(ReplayGroup& pg, const ReplaySource& source,
                                      const ReplayOptions& options) {
  DTPLAN_TRY(std::int64_t world, mesh_world_size(source.mesh));
  if (world != pg.world_size()) {
    return core::Error::bad_input("the plan's mesh has " + std::to_string(world) + " ranks, the " +
                                  std::string(pg.backend_name()) + " world " +
                                  std::to_string(pg.world_size()) + " (start " +
                                  std::to_string(world) + " processes)");
  }
  DTPLAN_TRY(std::vector<CollectiveJob> jobs, collect_jobs(source));

  ReplayReport report;
  report.kind = source.kind;
  report.model = source.model;
  report.backend = std::string(pg.backend_name());
  report.world = world;
  report.hardware = source.mesh.hardware;
  report.gpus_per_node = source.mesh.gpus_per_node;
  report.timing = options.timing;
  report.verify.ranks = world;
  if (options.verify) {
    for (const ReplayRedistribution& r : source.redistributions) {
      auto v = verify_redistribution(pg, r.plan, options.plan_verify);
      if (!v.ok()) return v.error().with_context(r.label);
      add_plan_verify(report.verify, *v);
    }
  }
  for (CollectiveJob& job : jobs) {
    const sim::CollectiveCall call = job_call(job);
    const std::string context = sim::describe(call) + " (" + job.first_use + ")";
    CallCheck check;
    if (options.check) {
      auto checked = check_call(pg, call, job.dtype, job_input_shape(job), options.check_max_bytes);
      if (!checked.ok()) return checked.error().with_context(context);
      check = *checked;
    }
    DTPLAN_TRY(RankTensors inputs, held_inputs(pg, job));
    auto timing = time_call(pg, call, inputs, options.timing);
    if (!timing.ok()) return timing.error().with_context(context);
    report.verify.collective_elements += check.elements;
    report.verify.collective_wrong_elements += check.wrong_elements;
    report.entries.push_back(make_entry(std::move(job), *timing, check));
  }
  report.totals = totals_of(report.entries);
  if (options.compute) {
    DTPLAN_TRY(report.compute, time_gemms(pg, source, options));
  }
  return report;
}

}  // namespace dtplan::replay
