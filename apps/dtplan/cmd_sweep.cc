// dtplan sweep: every mesh shape that factors the world, planned with the exact solver, its step
// simulated, ranked by step time then memory (lib/sweep).
//
//   dtplan sweep --model FILE --world 64 --gpus-per-node 8 [--hardware NAME] [--dims 1,2,3]
//                [--memory-limit 80GiB|none] [--layers N] [--batch N] [--seq-len N]
//                [--checkpoint none|selective_op|full] [--grad-accum N] [--no-grad-sync]
//                [--threads N] [--time-limit S]
//                [--gap G] [--no-flatten] [--csv F] [--html F] [--plans DIR] [--json]
//                [--resume DIR]
//
// Under an MPI launcher (`mpirun -np 4 dtplan sweep ...`) the ranks share the points and rank 0
// alone reports (sweep_mpi.h); --resume DIR records each finished point (sweep_resume.h). Failed
// points are rows of their own: every report is written, then exit 3.
//
// --gap (default 1e-4): each mesh's exact solve may stop once its plan is proven within 0.01% of
// that mesh's optimum (the step simulator that ranks the meshes is far coarser than that); such
// rows say how far above the lower bound they stopped. --gap 0 proves every optimum.
//
// --plans DIR (created if missing) gets every usable mesh's plan, as `dtplan plan --out` writes
// it, named by sweep::plan_file_name ("8x8_dp-tp.json"), each written whole or not at all as it
// is made; with --html the report links each usable mesh to its file, relative to the page.

#include <CLI/CLI.hpp>
#include <atomic>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "config_args.h"
#include "core/limits.h"
#include "core/output_file.h"
#include "core/strings.h"
#include "core/text_table.h"
#include "core/units.h"
#include "graph/model_io.h"
#include "hardware_arg.h"
#include "number_arg.h"
#include "output.h"
#include "plan/plan_io.h"
#include "progress_bar.h"
#include "solve/solver.h"
#include "sweep/mesh_candidates.h"
#include "sweep/model_evaluator.h"
#include "sweep/plan_files.h"
#include "sweep/sweep.h"
#include "sweep/sweep_csv.h"
#include "sweep/sweep_html.h"
#include "sweep/sweep_io.h"
#include "sweep_mpi.h"
#include "sweep_resume.h"
#include "training_args.h"

namespace dtplan::cli {

namespace {

struct Options {
  std::string model;
  std::string world;
  std::string gpus_per_node;
  std::string hardware{kDefaultHardware};
  std::string dims = "1,2,3";
  std::string memory_limit;
  std::string layers;
  TrainingArgs training;
  std::string threads = "0";
  double time_limit_s = 60;
  double gap = 1e-4;
  bool no_flatten = false;
  std::string csv;
  std::string html;
  std::string plans;
  std::string resume;
  bool json = false;
  bool quiet = false;
};

struct Request {
  sweep::SweepSetup setup;
  std::vector<sweep::MeshCandidate> candidates;
  std::unique_ptr<sweep::MeshEvaluator> evaluator;
  std::int32_t threads = 0;
  std::shared_ptr<std::atomic<std::int64_t>> plans_written =
      std::make_shared<std::atomic<std::int64_t>>(0);
};

// --plans: writes each plan that fits the memory limit (a usable mesh's) to DIR/<file name>.
sweep::PlanSink plan_writer(const std::string& dir, std::int64_t memory_limit_bytes,
                            std::shared_ptr<std::atomic<std::int64_t>> written) {
  return [dir, memory_limit_bytes, written](const sweep::MeshCandidate& c,
                                            const plan::Plan& plan) -> core::Status {
    if (memory_limit_bytes > 0 && plan.memory.peak_bytes_per_rank > memory_limit_bytes) {
      return core::Status{};
    }
    const std::string path = (std::filesystem::path(dir) / sweep::plan_file_name(c)).string();
    DTPLAN_CHECK(core::write_output_file(path, plan::plan_to_json(plan), "--plans"));
    ++*written;
    return core::Status{};
  };
}

// Creates --plans DIR (and its parents) unless it is a directory already.
core::Status make_plans_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    return core::Error::bad_input("--plans " + dir + ": " +
                                  (ec ? ec.message() : std::string("not a directory")));
  }
  return core::Status{};
}

// The plan directory as the page at `html` links to it ("plans", "../out/plans").
std::string plans_href(const std::string& html, const std::string& plans) {
  namespace fs = std::filesystem;
  std::error_code ec;  // absolute() fails only without a working directory: then as given
  fs::path page = fs::absolute(html, ec);
  fs::path dir = fs::absolute(plans, ec);
  if (ec) {
    page = html;
    dir = plans;
  }
  const fs::path page_dir = page.lexically_normal().parent_path();
  const fs::path rel = dir.lexically_normal().lexically_relative(page_dir);
  std::string href = rel.generic_string();
  while (href.size() > 1 && href.back() == '/') href.pop_back();
  return href.empty() ? "." : href;
}

core::Result<std::int64_t> positive(const std::string& text, const std::string& flag) {
  DTPLAN_TRY(std::int64_t v, core::parse_int(text, flag));
  if (v < 1) return core::Error::bad_input(flag + ": " + text + " is not a positive number");
  return v;
}

core::Result<Request> read_request(const Options& o) {
  if (o.model.empty()) return core::Error::bad_input("--model: required (a model file)");
  if (o.world.empty()) return core::Error::bad_input("--world: required (the rank count)");
  Request r;
  sweep::SweepSetup& s = r.setup;
  DTPLAN_TRY(s.world, positive(o.world, "--world"));
  DTPLAN_TRY(cost::HardwareProfile profile, load_hardware_arg(o.hardware, "--hardware"));
  s.hardware = profile.name;
  s.gpus_per_node = profile.node.gpus_per_node;
  if (!o.gpus_per_node.empty()) {
    DTPLAN_TRY(s.gpus_per_node, positive(o.gpus_per_node, "--gpus-per-node"));
    if (s.gpus_per_node > profile.node.gpus_per_node) {
      return core::Error::bad_input("--gpus-per-node: " + o.gpus_per_node + " is above the " +
                                    std::to_string(profile.node.gpus_per_node) +
                                    " GPUs per node of " + profile.name);
    }
  }
  DTPLAN_TRY(std::vector<std::int64_t> dims, core::parse_int_list(o.dims, "--dims"));
  sweep::CandidateOptions c{
      s.world, {}, o.no_flatten ? sweep::FlattenPolicy::kNone : sweep::FlattenPolicy::kUser};
  for (std::int64_t d : dims) {
    if (d < 1 || d > 3) {
      return core::Error::bad_input("--dims: " + std::to_string(d) +
                                    " is not a mesh dim count in [1, 3]");
    }
    c.dims.push_back(static_cast<std::int32_t>(d));
  }
  DTPLAN_TRY(r.candidates, sweep::enumerate_candidates(c));
  for (const sweep::MeshCandidate& m : r.candidates) {
    const auto k = static_cast<std::int32_t>(m.shape.size());
    if (s.dims.empty() || s.dims.back() != k) s.dims.push_back(k);
  }
  s.memory_limit_bytes = profile.gpu.hbm_capacity_bytes;
  if (!o.memory_limit.empty()) {
    DTPLAN_TRY(std::optional<std::int64_t> limit,
               core::parse_memory_limit(o.memory_limit, "--memory-limit"));
    s.memory_limit_bytes = limit.value_or(0);  // 0: none
  }
  graph::ModelOverrides overrides;
  if (!o.layers.empty()) {
    DTPLAN_TRY(std::int64_t layers, positive(o.layers, "--layers"));
    overrides.layers = layers;
  }
  DTPLAN_CHECK(apply_training_args(o.training, overrides));
  DTPLAN_TRY(std::int64_t threads, core::parse_int(o.threads, "--threads"));
  if (threads < 0 || threads > core::kMaxThreads) {
    return core::Error::bad_input("--threads: " + std::to_string(threads) + " is not in [0, " +
                                  std::to_string(core::kMaxThreads) +
                                  "] (0: one per hardware thread)" +
                                  core::limit_note("kMaxThreads"));
  }
  r.threads = static_cast<std::int32_t>(threads);
  DTPLAN_TRY(const std::string model_file, config_file_arg(ConfigKind::kModel, o.model, "--model"));
  DTPLAN_TRY(graph::Model model, graph::load_model(model_file, overrides));
  s.model = model.name;
  s.layers = static_cast<std::int32_t>(sweep::model_layers(model));
  sweep::ModelEvaluatorOptions eo;
  eo.gpus_per_node = s.gpus_per_node;
  eo.memory_limit_bytes = s.memory_limit_bytes;
  if (!(o.time_limit_s > 0)) {
    return core::Error::bad_input("--time-limit: " + std::to_string(o.time_limit_s) +
                                  " is not a positive number of seconds");
  }
  eo.time_limit_s = o.time_limit_s;
  DTPLAN_CHECK(solve::check_relative_gap(o.gap, "--gap"));
  eo.relative_gap = o.gap;
  sweep::PlanSink sink;
  if (!o.plans.empty()) sink = plan_writer(o.plans, s.memory_limit_bytes, r.plans_written);
  r.evaluator = sweep::make_model_evaluator(std::make_shared<const graph::Model>(std::move(model)),
                                            profile, eo, std::move(sink));
  s.evaluator = r.evaluator->description();
  return r;
}

std::string status_text(const sweep::SweepRow& row) {
  if (!row.evaluation.feasible) return "infeasible";
  if (!row.fits_memory) return "over-memory";
  return row.evaluation.optimal ? "optimal" : "feasible";
}

void print_table(const sweep::SweepResult& r) {
  const sweep::SweepSetup& s = r.setup;
  std::vector<std::string> dims;
  for (std::int32_t d : s.dims) dims.push_back(std::to_string(d));
  const std::string title =
      "dtplan sweep: " + s.model + " (" + std::to_string(s.layers) + " layers) on " +
      std::to_string(s.world) + " ranks, " + s.hardware + " (" + std::to_string(s.gpus_per_node) +
      " GPUs per node); dims " + core::join(dims, ",") + "; memory limit " +
      (s.memory_limit_bytes == 0 ? std::string("none") : core::format_size(s.memory_limit_bytes)) +
      "\n# evaluator: " + s.evaluator + "\n# ranked: usable first, then step time, memory, shape";
  core::TextTable t({{"rank", ""},
                     {"mesh", "", core::Align::kLeft},
                     {"names", "", core::Align::kLeft},
                     {"step", "ms"},
                     {"compute", "ms"},
                     {"exposed", "ms"},
                     {"comm", "ms"},
                     {"memory", "GiB"},
                     {"status", "", core::Align::kLeft},
                     {"note", "", core::Align::kLeft}},
                    title);
  const auto ms = [](double us) { return core::format_fixed(us / 1000.0, 3); };
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const sweep::SweepRow& row = r.rows[i];
    const sweep::MeshEvaluation& e = row.evaluation;
    std::string note = e.note;
    if (!row.tp_within_node) note = "tp spans nodes" + std::string(note.empty() ? "" : "; ") + note;
    t.add_row({std::to_string(i + 1), sweep::shape_label(row.mesh.shape),
               core::join(row.mesh.names, ","), ms(e.step_time_us), ms(e.compute_us),
               ms(e.exposed_us), ms(e.communication_us),
               core::format_fixed(static_cast<double>(e.memory_bytes_per_rank) / (1 << 30), 2),
               status_text(row), note});
  }
  print_text(t.render());
}

int run(const Options& o, const CLI::App& app, SweepProcesses& p) {
  auto request = read_request(o);
  if (!request.ok()) return p.report("sweep", request.error());
  Request& q = *request;
  if (!o.plans.empty()) {
    if (auto made = make_plans_dir(o.plans); !made.ok()) return p.report("sweep", made.error());
  }
  auto resume = p.reports() ? open_sweep_resume(o.resume, app, q.setup, q.candidates)
                            : core::Result<SweepResume>(SweepResume{});
  if (!resume.ok()) return p.report("sweep", resume.error());
  ProgressBar bar(p.reports() && ProgressBar::wanted(o.json, o.quiet), "sweep");
  core::Status recorded;
  sweep::SweepOptions so{q.threads,
                         [&](const sweep::SweepProgress& s) {
                           bar.update(s.done, s.total, sweep::shape_label(s.last->shape));
                           if (recorded.ok()) recorded = record_point(*resume, s);
                         },
                         p.runner(), resume->recorded};
  p.set_tally([&q] { return q.plans_written->load(); });
  auto result = sweep::run_sweep(q.setup, q.candidates, *q.evaluator, so);
  bar.finish();
  if (!result.ok()) return p.report("sweep", result.error());
  if (!recorded.ok()) return p.report("sweep", recorded.error());
  if (!p.reports()) return 0;
  if (resume->store) std::cerr << resumed_line(*resume);
  if (!o.csv.empty()) {
    auto w = core::write_output_file(o.csv, sweep::sweep_csv(*result), "--csv");
    if (!w.ok()) return p.report("sweep", w.error());
  }
  if (!o.html.empty()) {
    sweep::SweepHtmlOptions ho;
    if (!o.plans.empty()) ho.plans_href = plans_href(o.html, o.plans);
    auto w = core::write_output_file(o.html, sweep::sweep_html(*result, ho), "--html");
    if (!w.ok()) return p.report("sweep", w.error());
  }
  if (o.json) {
    print_json(sweep::sweep_json(*result));
  } else {
    print_table(*result);
    if (!o.plans.empty()) {
      print_text("# plans: " + std::to_string(p.total_tally()) + " files in " + o.plans + "\n");
    }
  }
  return report_failed_points(*result, q.candidates);
}

int run(const Options& o, const CLI::App& app) {
  auto processes = SweepProcesses::start();
  if (!processes.ok()) return report("sweep", processes.error());
  const int code = run(o, app, **processes);
  auto finished = (*processes)->finish(code);
  return finished.ok() ? *finished : report("sweep", finished.error());
}

}  // namespace

Action setup_sweep(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--model", o->model, "Model: a shipped name (dtplan list models) or a file");
  app.add_option("--world", o->world, "Ranks to factor into meshes, e.g. 64")->type_name("INT");
  app.add_option("--gpus-per-node", o->gpus_per_node,
                 "GPUs used per node (rank r is on node r / N); default: the profile's")
      ->type_name("INT");
  app.add_option("--hardware", o->hardware, "Hardware profile name or JSON file")
      ->capture_default_str();
  app.add_option("--dims", o->dims, "Mesh dim counts to try, each in 1..3")->capture_default_str();
  app.add_option("--memory-limit", o->memory_limit,
                 "Memory per rank, e.g. 80GiB, or none; default: the profile's HBM capacity");
  app.add_option("--layers", o->layers, "Override the model's layer count")->type_name("INT");
  add_training_options(app, o->training);
  app.add_option("--threads", o->threads, "Worker threads (0: one per hardware thread)")
      ->type_name("INT")
      ->capture_default_str();
  add_number_option(
      app, "--time-limit", o->time_limit_s,
      "Exact solver time limit per mesh, in seconds (a mesh that reaches it is noted)")
      ->capture_default_str();
  add_number_option(app, "--gap", o->gap,
                    "Exact solver: a mesh's plan may stop within this fraction of its optimum "
                    "(0: prove every optimum)")
      ->capture_default_str();
  app.add_flag("--no-flatten", o->no_flatten,
               "Create no flattened meshes (default: the data-parallel dims and the whole mesh)");
  app.add_option("--csv", o->csv, "Also write the ranking as CSV to this file");
  app.add_option("--html", o->html, "Also write a self-contained HTML report with charts");
  app.add_option("--plans", o->plans,
                 "Directory for each usable mesh's plan (as plan --out), created if missing; the "
                 "--html report links to them")
      ->type_name("DIR");
  app.add_option("--resume", o->resume,
                 "Directory recording each finished mesh; a rerun skips those recorded")
      ->type_name("DIR");
  add_json_flag(app, o->json);
  add_quiet_flag(app, o->quiet);
  return [o, &app] { return run(*o, app); };
}

}  // namespace dtplan::cli
