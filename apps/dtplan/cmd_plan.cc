// dtplan plan: a sharding strategy for every op of a model on a device mesh, with the
// redistributions it implies, priced, and the per-rank memory.
//
//   dtplan plan --model configs/models/llama3-8b.json --mesh configs/meshes/8x8.json
//               [--layers N] [--batch N] [--seq-len N] [--checkpoint none|selective_op|full]
//               [--grad-accum N] [--no-grad-sync] [--solver exact|greedy|ilp] [--memory-limit
//               80GiB]
//               [--hardware NAME|FILE] [--cost-model nccl|dtensor] [--time-limit S]
//               [--gap G] [--threads N] [--bound-fixing auto|on|off] [--out plan.json]
//               [--parallelize torchtitan|FILE] [--async-tp] [--compare-optimal] [--ops
//               [--all-layers]] [--json]
//
// --parallelize: a user's parallel plan as pins (strategy/pin_rules.h, docs/parallelize.md):
// FILE holds pin rules; `torchtitan` compiles torchtitan's parallelize_llama for the mesh's dim
// names to the same rules. Everything not pinned is chosen optimally. --compare-optimal also
// solves without the pins and prints both plans' step cost and peak memory with their ratios.
// --async-tp (with --parallelize torchtitan, --compile and a tp dim): the blocks' tp collectives
// fused with their matmuls as inductor's micro-pipeline TP runs them (plan/async_tp.h); the
// plan records training.async_tp and fused_matmuls. Misuse is exit 2 naming the flag.
//
// --gap: the exact solver stops once its plan costs at most G x its cost above the lower bound
// (optimal stays false unless proven); 0, the default, proves the optimum.
// --threads: the exact solver's worker threads (0, the default: one per hardware thread); the
// plan is identical for every count. --bound-fixing: whether the exact solver first drops the
// labels an LP bound proves useless (solve::BoundFixing; auto: the LP first, its labelling where
// tight, windows on wide domains).
//
// --batch, --seq-len, --checkpoint, --grad-accum, --no-grad-sync override the model file
// (training_args.h); the plan prices one training step of grad_accum microbatches with the
// checkpoint policy's recomputation, and records them (plan.training).
//
// Human output fits a screen (plan_summary_text.h): the headline (model, mesh, hardware, the
// simulated step with tokens/s per GPU and MFU, peak memory against the limit, the solver's
// proof or gap), the parameters' placements by family with torchtitan's names, the ten
// costliest redistributions per step, the cost breakdown, collectives, memory and the warnings
// counted once. --ops adds the op table (alike layers once; --all-layers: every layer).
// JSON: plan::plan_summary_json (format, model, layers, mesh,
// nodes, strategies, solver, cost, memory, collectives, warnings) plus timing, problem and the
// redistribution count; --out writes the whole plan (plan_io.h).

#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "collective/collective.h"
#include "command.h"
#include "config_args.h"
#include "core/limits.h"
#include "core/output_file.h"
#include "core/strings.h"
#include "core/text_file.h"
#include "core/text_table.h"
#include "core/units.h"
#include "elapsed_line.h"
#include "graph/model_io.h"
#include "hardware_arg.h"
#include "mesh/mesh_io.h"
#include "mesh_arg.h"
#include "number_arg.h"
#include "output.h"
#include "plan/async_tp.h"
#include "plan/plan.h"
#include "plan/plan_io.h"
#include "plan_ops_text.h"
#include "plan_summary_text.h"
#include "progress_bar.h"
#include "simulated_step.h"
#include "solve/solver.h"
#include "strategy/pin_rules_io.h"
#include "strategy/plan_model.h"
#include "strategy/torchtitan_pins.h"
#include "training_args.h"

namespace dtplan::cli {

namespace {

// How many of the costliest redistributions the text lists.
constexpr std::size_t kCostliest = 10;

struct Options {
  std::string model;
  std::string mesh;
  std::vector<std::string> flatten;
  std::optional<std::int64_t> layers;
  TrainingArgs training;
  std::string solver = "exact";
  std::string memory_limit;
  std::string hardware;
  std::string cost_model = "nccl";
  double time_limit_s = 60;
  double gap = 0;
  std::int32_t threads = 0;
  std::string bound_fixing = "auto";
  std::string out;
  std::string parallelize;
  bool compare_optimal = false;
  bool async_tp = false;
  bool ops = false;         // --ops: the op table too
  bool all_layers = false;  // --all-layers: with --ops, every layer's table
  bool json = false;
  bool quiet = false;
};

// The pinned plan and, with --compare-optimal, the free optimum beside it.
struct PlanRun {
  strategy::ModelPlan plan;
  strategy::PinSet pins;
  std::optional<strategy::ModelPlan> optimal;
  cost::HardwareProfile profile;  // the one the plan was priced on
};

// The pin rules of --parallelize for a mesh with dims `names` (empty when not given).
core::Result<strategy::PinSet> load_pins(const Options& o, const std::vector<std::string>& names,
                                         std::span<const std::int64_t> sizes,
                                         const graph::Model& model) {
  if (o.parallelize.empty()) {
    if (o.compare_optimal) {
      return core::Error::bad_input("--compare-optimal: needs --parallelize (a plan to compare)");
    }
    return strategy::PinSet{};
  }
  if (o.parallelize == "torchtitan") {
    if (!model.llama3) {
      return core::Error::unsupported(
          "--parallelize torchtitan: needs a llama3 builder model (torchtitan's "
          "parallelize_llama)");
    }
    return strategy::torchtitan_pins(names, sizes, *model.llama3);
  }
  const std::string source = "--parallelize " + o.parallelize;
  auto text = core::read_text_file(o.parallelize, "pin-rule file");
  if (!text.ok()) return text.error().with_context("--parallelize");
  return strategy::parse_pin_rules(*text, source, names);
}

std::vector<std::string> mesh_dim_names(const mesh::DeviceMesh& mesh) {
  std::vector<std::string> names;
  for (int d = 0; d < mesh.ndim(); ++d) {
    const std::string name = mesh.dim_name(mesh::MeshDim{static_cast<std::int8_t>(d)});
    names.push_back(name.empty() ? std::to_string(d) : name);
  }
  return names;
}

// --async-tp needs torchtitan's plan, compiled blocks (inductor does the fusion) and a tp dim
// of size > 1 (plan/async_tp.h); checked before solving.
core::Status check_async_tp_args(const Options& o, const graph::Model& model,
                                 const mesh::DeviceMesh& mesh) {
  if (!o.async_tp) return {};
  if (o.parallelize != "torchtitan") {
    return core::Error::bad_input(
        "--async-tp: needs --parallelize torchtitan (async TP fuses torchtitan's TP collectives)");
  }
  if (model.training.execution != core::Execution::kCompiled) {
    return core::Error::bad_input(
        "--async-tp: needs --compile (inductor's micro-pipeline TP pass does the fusion)");
  }
  const std::vector<std::string> names = mesh_dim_names(mesh);
  const auto it = std::find(names.begin(), names.end(), "tp");
  if (it == names.end() || mesh.shape()[static_cast<std::size_t>(it - names.begin())] <= 1) {
    return core::Error::bad_input(
        "--async-tp: needs a mesh dim named tp of size > 1 (there are no TP collectives to fuse)");
  }
  return {};
}

core::Result<PlanRun> run_plan(const Options& o) {
  if (o.model.empty()) return core::Error::bad_input("--model: required (a model file)");
  if (o.mesh.empty()) return core::Error::bad_input("--mesh: required (a mesh file)");
  graph::ModelOverrides overrides{.layers = o.layers};
  DTPLAN_CHECK(apply_training_args(o.training, overrides));
  strategy::ModelPlanOptions options;
  // Unknown names and a missing backend fail before loading.
  DTPLAN_TRY(options.solver, solve::parse_solver_kind(o.solver));
  DTPLAN_CHECK(solve::check_solver_available(options.solver));
  DTPLAN_TRY(options.cost_model, redist::parse_cost_model(o.cost_model, "--cost-model"));
  if (!o.memory_limit.empty()) {
    DTPLAN_TRY(options.memory_limit_bytes,
               core::parse_memory_limit(o.memory_limit, "--memory-limit"));
  }
  if (!(o.time_limit_s > 0)) return core::Error::bad_input("--time-limit: must be > 0");
  options.solve.time_limit_s = o.time_limit_s;
  DTPLAN_CHECK(solve::check_relative_gap(o.gap, "--gap"));
  options.solve.relative_gap = o.gap;
  if (o.threads < 0 || o.threads > core::kMaxThreads) {
    return core::Error::bad_input("--threads: " + std::to_string(o.threads) + " is not in [0, " +
                                  std::to_string(core::kMaxThreads) +
                                  "] (0: one per hardware thread)" +
                                  core::limit_note("kMaxThreads"));
  }
  const auto hardware_threads = static_cast<std::int32_t>(std::thread::hardware_concurrency());
  options.solve.threads = o.threads > 0 ? o.threads : std::max(1, hardware_threads);
  if (o.bound_fixing == "auto" || o.bound_fixing == "on" || o.bound_fixing == "off") {
    options.solve.bound_fixing = o.bound_fixing == "on"    ? solve::BoundFixing::kOn
                                 : o.bound_fixing == "off" ? solve::BoundFixing::kOff
                                                           : solve::BoundFixing::kAuto;
  } else {
    return core::Error::bad_input("--bound-fixing: '" + o.bound_fixing +
                                  "' is not one of auto, on, off");
  }
  DTPLAN_TRY(mesh::MeshConfig config, read_mesh_arg(o.mesh, "--mesh"));
  DTPLAN_CHECK(add_flatten_args(config, o.flatten));
  DTPLAN_TRY(mesh::LoadedMesh loaded,
             build_mesh_arg(config, mesh_file_label(o.mesh), o.flatten, "--mesh " + o.mesh));
  DTPLAN_TRY(cost::HardwareProfile profile, load_hardware_or_default(o.hardware, config.hardware));
  DTPLAN_TRY(const std::string model_file, config_file_arg(ConfigKind::kModel, o.model, "--model"));
  DTPLAN_TRY(graph::Model model, graph::load_model(model_file, overrides));
  if (model.graph.name().empty()) model.graph.set_name(model.name);
  options.training = model.training;
  DTPLAN_CHECK(check_async_tp_args(o, model, loaded.root));
  PlanRun run;
  run.profile = profile;
  DTPLAN_TRY(run.pins, load_pins(o, mesh_dim_names(loaded.root), loaded.root.shape(), model));
  // The free optimum of --compare-optimal sees the same options as the pinned plan.
  options.enumerate.strided_params = strategy::uses_strided_shard(run.pins);
  if (o.parallelize == "torchtitan") {
    options.enumerate.context_parallel_dims =
        strategy::context_parallel_dims(mesh_dim_names(loaded.root));
  }
  strategy::ModelPlanOptions pinned = options;
  pinned.pins = run.pins;
  DTPLAN_TRY(run.plan, strategy::plan_graph(model.graph, loaded.root, profile, pinned));
  if (o.async_tp) DTPLAN_CHECK(plan::apply_async_tp(run.plan.plan, profile, "--async-tp"));
  if (o.compare_optimal) {
    options.pins = strategy::data_layout_pins(run.plan.plan, "--compare-optimal");
    options.pruning = strategy::LabelPruning::kNone;  // a few pins: the bound would not pay
    DTPLAN_TRY(run.optimal, strategy::plan_graph(model.graph, loaded.root, profile, options));
  }
  return run;
}

std::string fixed(double v, int digits = 2) { return core::format_fixed(v, digits); }

std::string gib(std::int64_t bytes) {
  return fixed(static_cast<double>(bytes) / static_cast<double>(1LL << 30), 3);
}

// plan_io's summary (every plan field but ops and redistributions), plus where the time went
// and the problem's size.
Json plan_json(const strategy::ModelPlan& mp) {
  Json j = plan::plan_summary_json(mp.plan);
  const strategy::PlanStats& st = mp.stats;
  j["timing"] = {{"enumerate_s", st.enumerate_s},
                 {"export_s", st.export_s},
                 {"solve_s", st.solve_s},
                 {"lower_s", st.lower_s},
                 {"total_s", st.total_s}};
  j["problem"] = {{"nodes", st.problem.nodes},         {"edges", st.problem.edges},
                  {"labels", st.problem.labels},       {"distinct_ops", st.distinct_ops},
                  {"pairs_priced", st.pairs_priced},   {"matrices_built", st.matrices_built},
                  {"labels_pruned", st.labels_pruned}, {"fused_allgathers", st.fused_allgathers}};
  j["redistributions"] = mp.plan.redistributions.size();
  return j;
}

// pinned / optimal, 0 when the optimum is 0.
double ratio(double pinned, double optimal) { return optimal > 0 ? pinned / optimal : 0.0; }

// The rules of --parallelize with the nodes each pinned.
Json pins_json(const PlanRun& run) {
  Json rules = Json::array();
  const std::vector<std::int64_t>& matched = run.plan.stats.pin_matches;
  for (std::size_t r = 0; r < run.pins.rules.size(); ++r) {
    rules.push_back({{"name", run.pins.rules[r].name},
                     {"match", run.pins.rules[r].pattern},
                     {"nodes", r < matched.size() ? matched[r] : 0}});
  }
  return {{"source", run.pins.source}, {"rules", rules}};
}

// Step cost (per step, nothing overlapped) and peak memory of the pinned plan and the optimum.
Json compare_json(const plan::Plan& pinned, const plan::Plan& optimal) {
  auto side = [](const plan::Plan& p) {
    return Json{{"total_us", p.cost.total_us},
                {"peak_bytes_per_rank", p.memory.peak_bytes_per_rank}};
  };
  return {{"pinned", side(pinned)},
          {"optimal", side(optimal)},
          {"step_time_ratio", ratio(pinned.cost.total_us, optimal.cost.total_us)},
          {"memory_ratio", ratio(static_cast<double>(pinned.memory.peak_bytes_per_rank),
                                 static_cast<double>(optimal.memory.peak_bytes_per_rank))}};
}

std::string pins_text(const PlanRun& run) {
  core::TextTable t(
      {{"rule", "", core::Align::kLeft}, {"match", "", core::Align::kLeft}, {"nodes", ""}},
      "pinned by " + run.pins.source);
  const std::vector<std::int64_t>& matched = run.plan.stats.pin_matches;
  for (std::size_t r = 0; r < run.pins.rules.size(); ++r) {
    t.add_row({run.pins.rules[r].name, run.pins.rules[r].pattern,
               std::to_string(r < matched.size() ? matched[r] : 0)});
  }
  return t.render();
}

std::string compare_text(const plan::Plan& pinned, const plan::Plan& optimal) {
  core::TextTable t({{"plan", "", core::Align::kLeft}, {"total", "us"}, {"peak", "GiB"}},
                    "pinned plan against the free optimum (per step, nothing overlapped)");
  t.add_row({"pinned", fixed(pinned.cost.total_us), gib(pinned.memory.peak_bytes_per_rank)});
  t.add_row({"optimal", fixed(optimal.cost.total_us), gib(optimal.memory.peak_bytes_per_rank)});
  t.add_row({"ratio", fixed(ratio(pinned.cost.total_us, optimal.cost.total_us), 3),
             fixed(ratio(static_cast<double>(pinned.memory.peak_bytes_per_rank),
                         static_cast<double>(optimal.memory.peak_bytes_per_rank)),
                   3)});
  return t.render();
}

// The one-screen answer (plan_summary_text.h), the op table with --ops, then the pins and the
// comparison with the optimum where asked.
std::string plan_text(const Options& o, const PlanRun& run) {
  const strategy::ModelPlan& mp = run.plan;
  HeadlineStep step;
  if (auto figures = simulated_step(mp.plan, run.profile); figures.ok()) {
    step.step = *figures;
  } else {
    step.unavailable = figures.error().message;
  }
  std::string text = headline_text(mp, step);
  if (!run.pins.empty()) text += pins_text(run);
  text += parameters_text(mp.plan) + costliest_text(mp.plan, kCostliest) + totals_text(mp.plan);
  if (run.optimal) text += compare_text(mp.plan, run.optimal->plan);
  if (o.ops) {
    text += ops_text(mp.plan, o.all_layers ? LayerTables::kEach : LayerTables::kCollapseAlike);
  }
  return text;
}

int run(const Options& o) {
  ElapsedLine progress(ProgressBar::wanted(o.json, o.quiet), "dtplan plan");
  auto planned = run_plan(o);
  if (!planned.ok()) return report("plan", planned.error());
  const strategy::ModelPlan& mp = planned->plan;
  if (!o.out.empty()) {
    auto saved = core::write_output_file(o.out, plan::plan_to_json(mp.plan), "--out");
    if (!saved.ok()) return report("plan", saved.error());
  }
  if (o.json) {
    Json j = plan_json(mp);
    if (!planned->pins.empty()) j["parallelize"] = pins_json(*planned);
    if (planned->optimal) j["compare_optimal"] = compare_json(mp.plan, planned->optimal->plan);
    print_json(j);
    return 0;
  }
  print_text(plan_text(o, *planned));
  return 0;
}

}  // namespace

Action setup_plan(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--model", o->model, "Model: a shipped name (dtplan list models) or a file");
  app.add_option("--mesh", o->mesh,
                 "Mesh: a shipped name (dtplan list meshes), a file, or inline dims NAME=SIZE,...");
  app.add_option("--flatten", o->flatten, "Flattened mesh over dims DIMS[=NAME] (repeatable)");
  add_number_option(app, "--layers", o->layers, "Override the model's layer count");
  add_training_options(app, o->training);
  app.add_option("--solver", o->solver, "exact (optimal) | greedy (DTensor-style) | ilp (CBC)")
      ->capture_default_str();
  app.add_option("--memory-limit", o->memory_limit,
                 "Per-rank bytes for parameters, gradients, optimizer state and activations, "
                 "e.g. 80GiB, or none (the default: every parameter at its smallest shard)");
  app.add_option("--hardware", o->hardware,
                 "Hardware profile name or JSON file; default: the mesh file's, else h100-dgx");
  app.add_option("--cost-model", o->cost_model,
                 "Redistribution cost model: nccl | dtensor (PyTorch's)")
      ->capture_default_str();
  add_number_option(app, "--time-limit", o->time_limit_s, "Solver time limit in seconds")
      ->capture_default_str();
  add_number_option(
      app, "--gap", o->gap,
      "Exact solver: stop once the plan is proven within this fraction of the optimum, "
      "e.g. 1e-4 (0: prove the optimum)")
      ->capture_default_str();
  add_number_option(
      app, "--threads", o->threads,
      "Exact solver threads (0: one per hardware thread); the plan does not depend on it")
      ->capture_default_str();
  app.add_option("--bound-fixing", o->bound_fixing,
                 "Exact solver: drop labels an LP bound proves useless first (auto | on | off)")
      ->capture_default_str();
  app.add_option("--out", o->out, "Write the whole plan (ops, redistributions) as JSON here");
  app.add_option("--parallelize", o->parallelize,
                 "Pin a parallel plan: torchtitan (parallelize_llama by the mesh's dim names) or "
                 "a pin-rule JSON file; the rest is chosen optimally");
  app.add_flag("--compare-optimal", o->compare_optimal,
               "With --parallelize: also solve without the pins and print both with the ratios");
  app.add_flag("--async-tp", o->async_tp,
               "With --parallelize torchtitan and --compile: price async TP (the blocks' TP "
               "all-gathers and reduce-scatters fused with their matmuls over NVLink copies)");
  app.add_flag("--ops", o->ops,
               "Also print every op's strategy (the layers whose tables are alike once)");
  app.add_flag("--all-layers", o->all_layers, "With --ops: print every layer's table");
  add_json_flag(app, o->json);
  add_quiet_flag(app, o->quiet);
  return [o] { return run(*o); };
}

}  // namespace dtplan::cli
