// dtplan replay: runs a plan's collectives for real (MPI processes, NCCL on GPUs, or the fake
// process group), checks their data against the fake process group, times each distinct
// collective like nccl-tests and compares with the plan's prediction.
//
//   dtplan replay --plan FILE --backend fake|mpi|nccl [--iters N] [--warmup N] [--launches N]
//                 [--no-check] [--no-verify] [--compute] [--out results.json] [--json]
//   mpirun -np 8 dtplan replay --plan redist.json --backend mpi --out results.json
//
// Every process runs the same collectives; the process with index 0 prints and writes. Exit
// codes: 0 ok, 1 a check found wrong elements (the results are still printed and written), 2 bad
// input, 3 unsupported, 4 the backend is not built or has no device.

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "command.h"
#include "core/output_file.h"
#include "core/text_table.h"
#include "core/units.h"
#include "elapsed_line.h"
#include "hardware_arg.h"
#include "number_arg.h"
#include "output.h"
#include "placement/placement.h"
#include "progress_bar.h"
#include "replay/backends.h"
#include "replay/launch.h"
#include "replay/local_group.h"
#include "replay/replay_report_io.h"
#include "replay/replay_runner.h"
#include "replay/replay_source_io.h"

namespace dtplan::cli {

namespace {

struct Options {
  std::string plan;
  std::string backend = "fake";
  int iters = 20;
  int warmup = 5;
  int launches = 1;
  bool no_check = false;
  bool no_verify = false;
  bool compute = false;
  std::string out;
  bool json = false;
  bool quiet = false;
};

core::Result<std::unique_ptr<replay::ReplayGroup>> open_backend(
    const Options& o, const replay::ReplaySource& source) {
  if (o.backend == "fake") {
    DTPLAN_TRY(std::int64_t world, replay::mesh_world_size(source.mesh));
    DTPLAN_TRY(auto pg, replay::LocalReplayGroup::create(
                            {.world_size = world, .gpus_per_node = source.mesh.gpus_per_node}));
    return std::unique_ptr<replay::ReplayGroup>(std::move(pg));
  }
  if (o.backend == "mpi") return replay::open_mpi_group();
  if (o.backend == "nccl") return replay::open_nccl_group();
  return core::Error::bad_input("--backend: expected fake, mpi or nccl, got '" + o.backend + "'");
}

core::Status check_options(const Options& o) {
  if (o.plan.empty()) return core::Error::bad_input("--plan: required (a plan JSON file)");
  if (o.iters < 1) return core::Error::bad_input("--iters: must be at least 1");
  if (o.warmup < 0) return core::Error::bad_input("--warmup: must be at least 0");
  if (o.launches < 1) return core::Error::bad_input("--launches: must be at least 1");
  if (o.compute && o.backend != "nccl") {
    return core::Error::bad_input("--compute: times GEMMs on GPUs and needs --backend nccl");
  }
  return {};
}

core::Result<replay::ReplayReport> run(const Options& o, replay::ReplayGroup& pg,
                                       const replay::ReplaySource& source) {
  replay::ReplayOptions options;
  options.timing = {o.warmup, o.iters, o.launches};
  options.check = !o.no_check;
  options.verify = !o.no_verify;
  DTPLAN_TRY(replay::LaunchInfo launch, replay::detect_launch());
  options.compute = o.compute;
  // One GPU per process under a launcher (the NCCL backend's choice: the local rank's).
  options.gemm_device =
      replay::mpi_launcher(launch.launcher) ? static_cast<int>(launch.local_rank.value_or(0)) : 0;
  DTPLAN_TRY(replay::ReplayReport report, replay::run_replay(pg, source, options));
  report.plan = o.plan;
  report.launcher = std::string(replay::launcher_name(launch.launcher));
  DTPLAN_TRY(std::vector<double> processes, pg.reduce_over_world({1.0}, sim::ReduceOp::kSum));
  report.processes = processes.empty() ? 1 : static_cast<std::int64_t>(processes[0]);
  return report;
}

std::string dims_text(const replay::ReplaySource& source, const replay::CollectiveJob& job) {
  std::string dims = replay::dims_label(source.mesh, job.mesh_dims);
  return job.flattened_mesh.empty() ? dims : dims + "@" + job.flattened_mesh;
}

// The --compute table, appended to `text`.
void print_compute(const replay::ComputeReport& c, std::string& text) {
  core::TextTable table({{"op", "", core::Align::kLeft},
                         {"m", ""},
                         {"n", ""},
                         {"k", ""},
                         {"dtype", "", core::Align::kLeft},
                         {"count", ""},
                         {"predicted", "us"},
                         {"measured", "us"},
                         {"error", "%"},
                         {"measured", "TFLOP/s"}},
                        "compute: local GEMMs (cuBLAS, slowest process's median) against the "
                        "plan's roofline; " +
                            std::to_string(c.skipped) + " matmul ops of other forms skipped");
  for (const replay::ComputeEntry& e : c.entries) {
    const replay::GemmJob& j = e.job;
    table.add_row({j.name, std::to_string(j.m), std::to_string(j.n), std::to_string(j.k),
                   std::string(core::dtype_name(j.dtype)), std::to_string(j.count),
                   core::format_fixed(j.predicted_us, 2), core::format_fixed(e.measured_us, 2),
                   core::format_fixed(e.error * 100, 1), core::format_fixed(e.measured_tflops, 1)});
  }
  text += table.render();
}

void print_table(const replay::ReplaySource& source, const replay::ReplayReport& r) {
  std::string title =
      "dtplan replay: " + r.plan + " (" + std::string(replay::plan_kind_name(r.kind)) +
      (r.model.empty() ? "" : " " + r.model) + "), backend " + r.backend + ", " +
      std::to_string(r.world) + " ranks in " + std::to_string(r.processes) + " process" +
      (r.processes == 1 ? "" : "es") + ", launcher " + r.launcher + "\n# predicted on " +
      r.hardware + " (" + std::to_string(r.gpus_per_node) + " GPUs per node" +
      (source.repriced ? "" : "; not re-priced: the profile was not found") +
      "); measured: median of " + std::to_string(r.timing.iters) + " iterations after " +
      std::to_string(r.timing.warmup_iters) + " warm-up, slowest process each";
  core::TextTable table({{"collective", "", core::Align::kLeft},
                         {"dims", "", core::Align::kLeft},
                         {"ranks", ""},
                         {"dtype", "", core::Align::kLeft},
                         {"size", "B"},
                         {"count", ""},
                         {"predicted", "us"},
                         {"measured", "us"},
                         {"error", "%"},
                         {"pred_busbw", "GB/s"},
                         {"meas_busbw", "GB/s"},
                         {"wrong", "elements"}},
                        title);
  for (const replay::ReplayEntry& e : r.entries) {
    const replay::CollectiveJob& j = e.job;
    std::string name(collective::name(j.collective));
    if (collective::facts(j.collective).reduces) {
      name += "(" + std::string(placement::reduce_op_name(j.op)) + ")";
    }
    table.add_row({name, dims_text(source, j), std::to_string(j.group_size),
                   std::string(core::dtype_name(j.dtype)), std::to_string(j.nccl_bytes),
                   std::to_string(j.count), core::format_fixed(j.predicted_us, 2),
                   core::format_fixed(e.measured_us, 2), core::format_fixed(e.error * 100, 1),
                   core::format_fixed(e.predicted_busbw_gbps, 2),
                   core::format_fixed(e.measured_busbw_gbps, 2),
                   std::to_string(e.check.wrong_elements)});
  }
  std::string text = table.render();
  text += "# total (each collective times its count): predicted " +
          core::format_fixed(r.totals.predicted_us, 2) + " us, measured " +
          core::format_fixed(r.totals.measured_us, 2) + " us, error " +
          core::format_fixed(r.totals.error * 100, 1) + " %\n";
  const replay::ReplayVerify& v = r.verify;
  if (v.redistributions + v.skipped > 0) {
    text += "# verify: " + std::to_string(v.redistributions) + " redistribution" +
            (v.redistributions == 1 ? "" : "s") + " run end to end on " + std::to_string(v.ranks) +
            " ranks (" + std::to_string(v.skipped) + " skipped): " + std::to_string(v.elements) +
            " elements, " + std::to_string(v.wrong_elements) + " wrong, " +
            std::to_string(v.fake_mismatches) + " differ from the fake process group; replicas " +
            "bitwise equal: " + (v.replicas_bitwise_equal ? "yes" : "no") + " (" +
            std::to_string(v.differing_replica_sets) + " of " + std::to_string(v.replica_sets) +
            " replica sets differ)\n";
  }
  std::int64_t skipped = 0;
  for (const replay::ReplayEntry& e : r.entries) skipped += e.check.skipped ? 1 : 0;
  text += "# check: every collective against the fake process group: " +
          std::to_string(v.collective_elements) + " elements, " +
          std::to_string(v.collective_wrong_elements) + " wrong" +
          (skipped == 0 ? std::string() : ", " + std::to_string(skipped) + " too large, skipped") +
          "\n";
  if (r.compute) print_compute(*r.compute, text);
  print_text(text);
}

core::Status write_out(const std::string& path, const replay::ReplayReport& r) {
  return core::write_output_file(path, replay::report_to_json(r), "--out");
}

// Errors once a backend is open: every process fails alike on bad input (the plan is the same
// everywhere), so only process 0 reports those; other errors may be one process's own, and each
// process reports them under its index.
int report_from(const replay::ReplayGroup& pg, const core::Error& error) {
  const std::int64_t index = pg.process_index();
  if (index == 0) return report("replay", error);
  if (error.kind == core::ErrorKind::kBadInput) return static_cast<int>(error.kind);
  return report("replay", error.with_context("process " + std::to_string(index)));
}

int run_command(const Options& o) {
  if (auto s = check_options(o); !s.ok()) return report("replay", s.error());
  // The plan's costs are re-priced from its hardware profile where that loads (as --hardware
  // finds profiles); a machine without the profile replays with the costs checked for range.
  const replay::HardwareLookup lookup =
      [](const std::string& name) -> std::optional<cost::HardwareProfile> {
    auto profile = load_hardware_arg(name, "the plan's mesh.hardware");
    if (!profile.ok()) return std::nullopt;
    return std::move(profile).value();
  };
  ElapsedLine progress(ProgressBar::wanted(o.json, o.quiet), "dtplan replay");
  auto source = replay::load_replay_source(o.plan, lookup);
  if (!source.ok()) return report("replay", source.error());
  auto pg = open_backend(o, *source);
  if (!pg.ok()) return report("replay", pg.error());
  auto result = run(o, **pg, *source);
  if (!result.ok()) return report_from(**pg, result.error());
  const std::int64_t wrong =
      result->verify.wrong_elements + result->verify.collective_wrong_elements;
  if ((*pg)->process_index() != 0) return wrong == 0 ? 0 : 1;
  if (!o.out.empty()) {
    if (auto s = write_out(o.out, *result); !s.ok()) return report("replay", s.error());
  }
  if (o.json) {
    print_json(replay::report_json(*result));
  } else {
    print_table(*source, *result);
  }
  if (result->verify.wrong_elements != 0) {
    return report("replay",
                  core::Error::internal(
                      "verification failed: " + std::to_string(result->verify.wrong_elements) +
                      " wrong elements against the fake process group"));
  }
  return 0;
}

}  // namespace

Action setup_replay(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--plan", o->plan, "Plan JSON (dtplan redistribute --json or dtplan plan --out)")
      ->required();
  app.add_option("--backend", o->backend, "fake, mpi (under mpirun/srun) or nccl (GPUs)")
      ->capture_default_str();
  add_number_option(app, "--iters", o->iters, "Timed iterations per collective")
      ->capture_default_str();
  add_number_option(app, "--warmup", o->warmup, "Untimed warm-up iterations")
      ->capture_default_str();
  add_number_option(app, "--launches", o->launches, "Back-to-back launches per timed iteration")
      ->capture_default_str();
  app.add_flag("--no-check", o->no_check, "Skip each collective's data check against the fake");
  app.add_flag("--no-verify", o->no_verify,
               "Skip running every redistribution end to end and verifying its result");
  app.add_flag("--compute", o->compute, "Also time the plan's GEMMs with cuBLAS (nccl only)");
  app.add_option("--out", o->out, "Write the results (JSON) to this file");
  add_json_flag(app, o->json);
  add_quiet_flag(app, o->quiet);
  return [o] { return run_command(*o); };
}

}  // namespace dtplan::cli
