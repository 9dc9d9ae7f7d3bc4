// dtplan sweep: every configuration of torchtitan's parallelism degrees (dp_replicate, dp_shard,
// cp, tp) that splits the world, times the training choices and plans asked for, each planned
// with the exact solver, its step simulated, ranked by throughput then memory (lib/sweep).
//
//   dtplan sweep --model FILE --world 64 [--gpus-per-node 8] [--hardware NAME] [--dims 1,2,3,4]
//                [--dp-replicate L] [--dp-shard L] [--cp L] [--tp L] [--max-tp-per-node N]
//                [--tp-across-nodes] [--parallelize optimal,torchtitan]
//                [--memory-limit 80GiB|none] [--layers N] [--batch L] [--seq-len N]
//                [--checkpoint none,selective_op,full] [--grad-accum L] [--no-grad-sync]
//                [--threads N] [--time-limit S] [--gap G] [--no-flatten] [--top N]
//                [--csv F] [--html F] [--plans DIR] [--json]
//                [--resume DIR]
//
// Under an MPI launcher (`mpirun -np 4 dtplan sweep ...`) the ranks share the points and rank 0
// alone reports (sweep_mpi.h); --resume DIR records each finished point (sweep_resume.h). Failed
// points are rows of their own: every report is written, then exit 3.
//
// --gap (default 1e-4): each configuration's exact solve may stop once its plan is proven within
// 0.01% of its optimum (the step simulator that ranks them is far coarser than that); such rows
// say how far above the lower bound they stopped. --gap 0 proves every optimum.
//
// --plans DIR (created if missing) gets every usable configuration's plan, as `dtplan plan
// --out` writes it, named by sweep::plan_file_name ("8x8_dp_shard-tp.json"), each written whole
// or not at all as it is made; with --html the report links each to its file.

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
#include "sweep_text.h"
#include "training_args.h"

namespace dtplan::cli {

namespace {

struct Options {
  std::string model;
  std::string world;
  std::string gpus_per_node;
  std::string hardware{kDefaultHardware};
  std::string dims = "1,2,3,4";
  std::string dp_replicate = "1";
  std::string dp_shard;
  std::string cp;
  std::string tp;
  std::string max_tp_per_node;
  bool tp_across_nodes = false;
  std::string parallelize = "optimal";
  std::string memory_limit;
  std::string layers;
  TrainingArgs training;
  std::string threads = "0";
  double time_limit_s = 60;
  double gap = 1e-4;
  bool no_flatten = false;
  std::string top = "25";
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
  std::int64_t top = 25;  // text table rows (0: all)
  std::shared_ptr<std::atomic<std::int64_t>> plans_written =
      std::make_shared<std::atomic<std::int64_t>>(0);
};

// --plans: writes each plan that fits the memory limit (a usable mesh's) to DIR/<file name>.
sweep::PlanSink plan_writer(const std::string& dir, std::int64_t memory_limit_bytes,
                            std::shared_ptr<std::atomic<std::int64_t>> written) {
  return [dir, memory_limit_bytes, written](const sweep::MeshCandidate& c,
                                            const plan::Plan& plan) -> core::Status {
    if (!sweep::fits_memory(plan.memory.peak_bytes_per_rank, memory_limit_bytes)) {
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

// A role's degree list ("" or "any": every divisor of the world).
core::Result<std::vector<std::int64_t>> degree_list(const std::string& text,
                                                    const std::string& flag) {
  if (text.empty() || text == "any") return std::vector<std::int64_t>{};
  return core::parse_int_list(text, flag);
}

// What to try: the meshes (--world, --dims, the role lists and the tp rule) and the plans; the
// training lists are added once the model is known.
core::Result<sweep::CandidateOptions> read_space(const Options& o, const sweep::SweepSetup& s) {
  sweep::CandidateOptions c;
  c.world = s.world;
  c.flatten = o.no_flatten ? sweep::FlattenPolicy::kNone : sweep::FlattenPolicy::kUser;
  DTPLAN_TRY(std::vector<std::int64_t> dims, core::parse_int_list(o.dims, "--dims"));
  c.dims.clear();
  for (std::int64_t d : dims) {
    if (d < 1 || d > 4) {
      return core::Error::bad_input("--dims: " + std::to_string(d) +
                                    " is not a mesh dim count in [1, 4]");
    }
    c.dims.push_back(static_cast<std::int32_t>(d));
  }
  DTPLAN_TRY(c.roles.dp_replicate, degree_list(o.dp_replicate, "--dp-replicate"));
  DTPLAN_TRY(c.roles.dp_shard, degree_list(o.dp_shard, "--dp-shard"));
  DTPLAN_TRY(c.roles.cp, degree_list(o.cp, "--cp"));
  DTPLAN_TRY(c.roles.tp, degree_list(o.tp, "--tp"));
  c.gpus_per_node = s.gpus_per_node;
  c.tp_across_nodes = o.tp_across_nodes;
  if (!o.max_tp_per_node.empty()) {
    DTPLAN_TRY(c.max_tp_per_node, positive(o.max_tp_per_node, "--max-tp-per-node"));
    if (o.tp_across_nodes) {
      return core::Error::bad_input("--max-tp-per-node: cannot be combined with --tp-across-nodes");
    }
  }
  c.parallelize.clear();
  for (std::string_view name : core::split(o.parallelize, ',')) {
    DTPLAN_TRY(sweep::Parallelize p, sweep::parse_parallelize(name, "--parallelize"));
    c.parallelize.push_back(p);
  }
  return c;
}

// The hardware, world and node size of the setup.
core::Result<cost::HardwareProfile> read_hardware(const Options& o, sweep::SweepSetup& s) {
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
  s.memory_limit_bytes = profile.gpu.hbm_capacity_bytes;
  if (!o.memory_limit.empty()) {
    DTPLAN_TRY(std::optional<std::int64_t> limit,
               core::parse_memory_limit(o.memory_limit, "--memory-limit"));
    s.memory_limit_bytes = limit.value_or(0);  // 0: none
  }
  return profile;
}

// The model with the sweep's overrides (lists of one value included), its name and training
// step in the setup, and the lists of two values or more in the space.
core::Result<std::shared_ptr<sweep::ModelCache>> read_model(const Options& o,
                                                            sweep::SweepSetup& s) {
  graph::ModelOverrides overrides;
  if (!o.layers.empty()) {
    DTPLAN_TRY(std::int64_t layers, positive(o.layers, "--layers"));
    overrides.layers = layers;
  }
  DTPLAN_TRY(TrainingLists lists, apply_training_lists(o.training, overrides));
  DTPLAN_TRY(const std::string model_file, config_file_arg(ConfigKind::kModel, o.model, "--model"));
  DTPLAN_TRY(graph::Model model, graph::load_model(model_file, overrides));
  s.model = model.name;
  s.layers = static_cast<std::int32_t>(sweep::model_layers(model));
  if (model.llama3) {
    s.batch = model.llama3->batch;
    s.seq_len = model.llama3->seq_len;
    s.grad_accum = model.training.grad_accum;
    s.checkpoint = core::checkpoint_policy_name(model.training.checkpoint);
  }
  s.space.batches = std::move(lists.batches);
  s.space.grad_accums = std::move(lists.grad_accums);
  s.space.checkpoints = std::move(lists.checkpoints);
  return std::make_shared<sweep::ModelCache>(model_file, overrides);
}

core::Result<Request> read_request(const Options& o) {
  if (o.model.empty()) return core::Error::bad_input("--model: required (a model file)");
  if (o.world.empty()) return core::Error::bad_input("--world: required (the rank count)");
  Request r;
  sweep::SweepSetup& s = r.setup;
  DTPLAN_TRY(cost::HardwareProfile profile, read_hardware(o, s));
  DTPLAN_TRY(s.space, read_space(o, s));
  DTPLAN_TRY(std::int64_t threads, core::parse_int(o.threads, "--threads"));
  if (threads < 0 || threads > core::kMaxThreads) {
    return core::Error::bad_input("--threads: " + std::to_string(threads) + " is not in [0, " +
                                  std::to_string(core::kMaxThreads) +
                                  "] (0: one per hardware thread)" +
                                  core::limit_note("kMaxThreads"));
  }
  r.threads = static_cast<std::int32_t>(threads);
  DTPLAN_TRY(r.top, core::parse_int(o.top, "--top"));
  if (r.top < 0) return core::Error::bad_input("--top: " + o.top + " is negative (0: every row)");
  if (!(o.time_limit_s > 0)) {
    return core::Error::bad_input("--time-limit: " + std::to_string(o.time_limit_s) +
                                  " is not a positive number of seconds");
  }
  DTPLAN_CHECK(solve::check_relative_gap(o.gap, "--gap"));
  DTPLAN_TRY(std::shared_ptr<sweep::ModelCache> models, read_model(o, s));
  DTPLAN_TRY(r.candidates, sweep::enumerate_candidates(s.space));
  for (const sweep::MeshCandidate& m : r.candidates) {
    const auto k = static_cast<std::int32_t>(m.shape.size());
    if (std::find(s.dims.begin(), s.dims.end(), k) == s.dims.end()) s.dims.push_back(k);
  }
  std::sort(s.dims.begin(), s.dims.end());
  sweep::ModelEvaluatorOptions eo;
  eo.gpus_per_node = s.gpus_per_node;
  eo.memory_limit_bytes = s.memory_limit_bytes;
  eo.time_limit_s = o.time_limit_s;
  eo.relative_gap = o.gap;
  sweep::PlanSink sink;
  if (!o.plans.empty()) sink = plan_writer(o.plans, s.memory_limit_bytes, r.plans_written);
  r.evaluator = sweep::make_model_evaluator(std::move(models), profile, eo, std::move(sink));
  s.evaluator = r.evaluator->description();
  return r;
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
    print_text(sweep_text(*result, q.top));
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
  app.add_option("--dims", o->dims, "Mesh dim counts to try, each in 1..4")->capture_default_str();
  app.add_option("--dp-replicate", o->dp_replicate,
                 "HSDP replica degrees to try, e.g. 1,2,4, or any")
      ->type_name("LIST")
      ->capture_default_str();
  app.add_option("--dp-shard", o->dp_shard, "FSDP degrees to try (default: any)")
      ->type_name("LIST");
  app.add_option("--cp", o->cp, "Context-parallel degrees to try (default: any)")
      ->type_name("LIST");
  app.add_option("--tp", o->tp, "Tensor-parallel degrees to try (default: any within a node)")
      ->type_name("LIST");
  app.add_option("--max-tp-per-node", o->max_tp_per_node,
                 "Largest tp degree tried (tp groups stay within a node; default: GPUs per node)")
      ->type_name("INT");
  app.add_flag("--tp-across-nodes", o->tp_across_nodes,
               "Also try tp degrees whose groups span nodes (noted in the results)");
  app.add_option("--parallelize", o->parallelize,
                 "Plans to price: optimal, torchtitan (parallelize_llama pinned) or both")
      ->type_name("LIST")
      ->capture_default_str();
  app.add_option("--memory-limit", o->memory_limit,
                 "Memory per rank, e.g. 80GiB, or none; default: the profile's HBM capacity");
  app.add_option("--layers", o->layers, "Override the model's layer count")->type_name("INT");
  add_training_options(app, o->training, ChoiceFlags::kLists);
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
  app.add_option("--top", o->top, "Rows of the text table (0: all)")
      ->type_name("INT")
      ->capture_default_str();
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
