// dtplan plan: a sharding strategy for every op of a model on a device mesh, with the
// redistributions it implies, priced, and the per-rank memory.
//
//   dtplan plan --model configs/models/llama3-8b.json --mesh configs/meshes/8x8.json
//               [--layers N] [--solver exact|greedy|ilp] [--memory-limit 80GiB]
//               [--hardware NAME|FILE] [--cost-model nccl|dtensor] [--time-limit S]
//               [--json]
//
// Human output: a header, the strategy of every op grouped by layer (consecutive layers with the
// same strategies print once, "layers 0-31 (x32)"), the cost breakdown, the collectives, the
// memory per rank and the warnings. JSON: {model, layers, mesh, nodes, strategies, solver, cost,
// collectives, warnings, memory, timing, problem, ops}.

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collective/collective.h"
#include "command.h"
#include "core/strings.h"
#include "core/text_table.h"
#include "core/units.h"
#include "graph/model_io.h"
#include "hardware_arg.h"
#include "mesh/mesh_io.h"
#include "mesh_arg.h"
#include "output.h"
#include "placement/placement_text.h"
#include "plan/plan.h"
#include "strategy/plan_model.h"

namespace dtplan::cli {

namespace {

struct Options {
  std::string model;
  std::string mesh;
  std::optional<std::int64_t> layers;
  std::string solver = "exact";
  std::string memory_limit;
  std::string hardware;
  std::string cost_model = "nccl";
  double time_limit_s = 60;
  bool json = false;
};

core::Result<strategy::ModelPlan> run_plan(const Options& o) {
  if (o.model.empty()) return core::Error::bad_input("--model: required (a model file)");
  if (o.mesh.empty()) return core::Error::bad_input("--mesh: required (a mesh file)");
  graph::ModelOverrides overrides;
  if (o.layers) {
    if (*o.layers < 1) {
      return core::Error::bad_input("--layers: " + std::to_string(*o.layers) + " is not >= 1");
    }
    overrides.layers = *o.layers;
  }
  strategy::ModelPlanOptions options;
  options.solver = o.solver;
  DTPLAN_TRY(auto solver, solve::make_solver(o.solver));  // unknown names fail before loading
  DTPLAN_TRY(options.cost_model, redist::parse_cost_model(o.cost_model, "--cost-model"));
  if (!o.memory_limit.empty()) {
    DTPLAN_TRY(options.memory_limit_bytes, core::parse_size(o.memory_limit, "--memory-limit"));
  }
  if (!(o.time_limit_s > 0)) return core::Error::bad_input("--time-limit: must be > 0");
  options.solve.time_limit_s = o.time_limit_s;
  DTPLAN_TRY(mesh::MeshConfig config, read_mesh_file(o.mesh, "--mesh"));
  DTPLAN_TRY(mesh::LoadedMesh loaded, build_mesh_arg(config, o.mesh, {}, "--mesh"));
  const std::string hardware = !o.hardware.empty()        ? o.hardware
                               : !config.hardware.empty() ? config.hardware
                                                          : std::string(kDefaultHardware);
  DTPLAN_TRY(cost::HardwareProfile profile, load_hardware_arg(hardware, "--hardware"));
  DTPLAN_TRY(graph::Model model, graph::load_model(o.model, overrides));
  if (model.graph.name().empty()) model.graph.set_name(model.name);
  return strategy::plan_graph(model.graph, loaded.root, profile, options);
}

std::string dim_names(const plan::Plan& plan, std::span<const std::int32_t> dims) {
  std::vector<std::string> out;
  for (std::int32_t d : dims) {
    out.push_back(plan.mesh.names.empty() ? std::to_string(d)
                                          : plan.mesh.names[static_cast<std::size_t>(d)]);
  }
  return core::join(out, ",");
}

std::string mesh_text(const plan::Plan& plan) {
  std::string text = core::format_int_list(plan.mesh.shape);
  if (!plan.mesh.names.empty()) text = core::join(plan.mesh.names, ",") + " " + text;
  std::vector<std::string> flats;
  for (const redist::FlattenedMeshInfo& f : plan.mesh.flattened) flats.push_back(f.name);
  if (!flats.empty()) text += ", flattened " + core::join(flats, ",");
  return text;
}

// An op's name without its "layers.N." prefix (so repeated layers compare equal).
std::string local_name(const plan::PlanOp& op) {
  const std::string prefix = "layers." + std::to_string(op.layer) + ".";
  if (op.layer >= 0 && op.name.starts_with(prefix)) return op.name.substr(prefix.size());
  return op.name;
}

std::string fixed(double v, int digits = 2) { return core::format_fixed(v, digits); }

std::string gib(std::int64_t bytes) {
  return fixed(static_cast<double>(bytes) / static_cast<double>(1LL << 30), 3);
}

// The ops table: non-layer ops first, then each run of layers with identical strategies once.
std::string ops_text(const plan::Plan& plan) {
  std::vector<std::size_t> outside;
  std::vector<std::vector<std::size_t>> by_layer;
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const std::int32_t layer = plan.ops[i].layer;
    if (layer < 0) {
      outside.push_back(i);
      continue;
    }
    if (static_cast<std::size_t>(layer) >= by_layer.size()) by_layer.resize(layer + 1);
    by_layer[static_cast<std::size_t>(layer)].push_back(i);
  }
  auto same = [&](const std::vector<std::size_t>& a, const std::vector<std::size_t>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k) {
      const plan::PlanOp& x = plan.ops[a[k]];
      const plan::PlanOp& y = plan.ops[b[k]];
      if (local_name(x) != local_name(y) || x.strategy != y.strategy) return false;
    }
    return true;
  };
  std::string text;
  auto table = [&](const std::string& title, const std::vector<std::size_t>& ops) {
    core::TextTable t({{"op", "", core::Align::kLeft},
                       {"kind", "", core::Align::kLeft},
                       {"phase", "", core::Align::kLeft},
                       {"options", ""},
                       {"strategy", "", core::Align::kLeft},
                       {"compute", "us"}},
                      title);
    for (std::size_t i : ops) {
      const plan::PlanOp& op = plan.ops[i];
      t.add_row({local_name(op), op.op, std::string(plan::phase_name(op.phase)),
                 std::to_string(op.options), op.strategy, fixed(op.compute_us)});
    }
    text += t.render();
  };
  table("strategies outside the layers", outside);
  for (std::size_t l = 0; l < by_layer.size();) {
    std::size_t end = l + 1;
    while (end < by_layer.size() && same(by_layer[l], by_layer[end])) ++end;
    const std::string title = end - l == 1 ? "strategies of layer " + std::to_string(l)
                                           : "strategies of layers " + std::to_string(l) + "-" +
                                                 std::to_string(end - 1) + " (x" +
                                                 std::to_string(end - l) + ")";
    table(title, by_layer[l]);
    l = end;
  }
  return text;
}

std::string summary_text(const strategy::ModelPlan& mp) {
  const plan::Plan& plan = mp.plan;
  std::string text;
  const plan::CostSummary& c = plan.cost;
  core::TextTable cost({{"cost", "", core::Align::kLeft}, {"time", "us"}, {"share", "%"}},
                       "cost breakdown (per step, nothing overlapped)");
  auto share = [&](double v) { return fixed(c.total_us > 0 ? 100.0 * v / c.total_us : 0.0, 1); };
  cost.add_row({"compute", fixed(c.compute_us), share(c.compute_us)});
  cost.add_row({"communication", fixed(c.communication_us), share(c.communication_us)});
  cost.add_row({"redistribution", fixed(c.redistribution_us), share(c.redistribution_us)});
  cost.add_row({"total", fixed(c.total_us), share(c.total_us)});
  text += cost.render();

  core::TextTable coll({{"collective", "", core::Align::kLeft},
                        {"mesh_dims", "", core::Align::kLeft},
                        {"flattened", "", core::Align::kLeft},
                        {"group", "ranks"},
                        {"count", ""},
                        {"bytes", "B"},
                        {"time", "us"}},
                       "collectives");
  for (const plan::CollectiveSummary& s : plan.collectives) {
    coll.add_row({std::string(collective::name(s.kind)), dim_names(plan, s.mesh_dims),
                  s.flattened.empty() ? "-" : s.flattened, std::to_string(s.group_size),
                  std::to_string(s.count), std::to_string(s.bytes), fixed(s.time_us)});
  }
  text += coll.render();
  if (plan.collectives.empty()) text += "# (no collectives)\n";

  const plan::MemorySummary& m = plan.memory;
  core::TextTable mem({{"memory", "", core::Align::kLeft}, {"bytes", "B"}, {"size", "GiB"}},
                      "memory per rank (Adam: 2 fp32 states per parameter element)");
  mem.add_row({"parameters", std::to_string(m.parameter_bytes), gib(m.parameter_bytes)});
  mem.add_row({"gradients", std::to_string(m.gradient_bytes), gib(m.gradient_bytes)});
  mem.add_row({"optimizer", std::to_string(m.optimizer_bytes), gib(m.optimizer_bytes)});
  mem.add_row({"activations", std::to_string(m.activation_bytes), gib(m.activation_bytes)});
  mem.add_row({"peak", std::to_string(m.peak_bytes_per_rank), gib(m.peak_bytes_per_rank)});
  if (m.limit_bytes > 0) {
    mem.add_row({"limit", std::to_string(m.limit_bytes), gib(m.limit_bytes)});
  }
  text += mem.render();
  for (const redist::Warning& w : plan.warnings) {
    text += "# warning " + std::string(redist::warning_reason_name(w.reason)) + " (mesh dims " +
            dim_names(plan, w.mesh_dims) + "): " + w.message + "\n";
  }
  return text;
}

std::string header_text(const strategy::ModelPlan& mp) {
  const plan::Plan& plan = mp.plan;
  const plan::SolverSummary& s = plan.solver;
  return "# dtplan plan: " + plan.model + " (" + std::to_string(plan.layers) +
         (plan.layers == 1 ? " layer) on " : " layers) on ") + mesh_text(plan) + "; " +
         plan.mesh.hardware + " (" + std::to_string(plan.mesh.gpus_per_node) +
         " GPUs per node)\n# nodes " + std::to_string(plan.ops.size()) + ", strategies " +
         std::to_string(plan.strategies) + ", redistributions " +
         std::to_string(plan.redistributions.size()) + "\n# solver " + s.name +
         (s.optimal ? " (optimal)" : "") + ": objective " + fixed(s.objective_us) +
         " us, lower bound " + fixed(s.lower_bound_us) + " us, solve " + fixed(s.time_s, 3) +
         " s, total " + fixed(mp.stats.total_s, 3) + " s\n";
}

Json plan_json(const strategy::ModelPlan& mp) {
  const plan::Plan& plan = mp.plan;
  Json j;
  j["model"] = plan.model;
  j["layers"] = plan.layers;
  Json flats = Json::array();
  for (const redist::FlattenedMeshInfo& f : plan.mesh.flattened) flats.push_back(f.name);
  j["mesh"] = {{"shape", plan.mesh.shape},
               {"names", plan.mesh.names},
               {"flattened", flats},
               {"hardware", plan.mesh.hardware},
               {"gpus_per_node", plan.mesh.gpus_per_node}};
  j["nodes"] = plan.ops.size();
  j["strategies"] = plan.strategies;
  j["redistributions"] = plan.redistributions.size();
  const plan::SolverSummary& s = plan.solver;
  j["solver"] = {{"name", s.name},
                 {"time_s", s.time_s},
                 {"objective_us", s.objective_us},
                 {"lower_bound_us", s.lower_bound_us},
                 {"optimal", s.optimal}};
  const plan::CostSummary& c = plan.cost;
  j["cost"] = {{"compute_us", c.compute_us},
               {"communication_us", c.communication_us},
               {"redistribution_us", c.redistribution_us},
               {"total_us", c.total_us}};
  Json coll = Json::array();
  for (const plan::CollectiveSummary& r : plan.collectives) {
    coll.push_back({{"kind", collective::name(r.kind)},
                    {"mesh_dims", r.mesh_dims},
                    {"flattened", r.flattened},
                    {"group_size", r.group_size},
                    {"count", r.count},
                    {"bytes", r.bytes},
                    {"time_us", r.time_us}});
  }
  j["collectives"] = coll;
  Json warnings = Json::array();
  for (const redist::Warning& w : plan.warnings) {
    warnings.push_back({{"reason", redist::warning_reason_name(w.reason)},
                        {"mesh_dims", w.mesh_dims},
                        {"message", w.message}});
  }
  j["warnings"] = warnings;
  const plan::MemorySummary& m = plan.memory;
  j["memory"] = {
      {"parameter_bytes", m.parameter_bytes},         {"gradient_bytes", m.gradient_bytes},
      {"optimizer_bytes", m.optimizer_bytes},         {"activation_bytes", m.activation_bytes},
      {"peak_bytes_per_rank", m.peak_bytes_per_rank}, {"limit_bytes", m.limit_bytes}};
  const strategy::PlanStats& st = mp.stats;
  j["timing"] = {{"enumerate_s", st.enumerate_s},
                 {"export_s", st.export_s},
                 {"solve_s", st.solve_s},
                 {"lower_s", st.lower_s},
                 {"total_s", st.total_s}};
  j["problem"] = {{"nodes", st.problem.nodes},       {"edges", st.problem.edges},
                  {"labels", st.problem.labels},     {"distinct_ops", st.distinct_ops},
                  {"pairs_priced", st.pairs_priced}, {"fused_allgathers", st.fused_allgathers}};
  Json ops = Json::array();
  for (const plan::PlanOp& op : plan.ops) {
    ops.push_back({{"name", op.name},
                   {"op", op.op},
                   {"layer", op.layer},
                   {"placements", placement::format_placements(op.placements)},
                   {"strategy", op.strategy},
                   {"compute_us", op.compute_us}});
  }
  j["ops"] = ops;
  return j;
}

int run(const Options& o) {
  auto planned = run_plan(o);
  if (!planned.ok()) return report("plan", planned.error());
  if (o.json) {
    print_json(plan_json(*planned));
  } else {
    print_text(header_text(*planned) + ops_text(planned->plan) + summary_text(*planned));
  }
  return 0;
}

}  // namespace

Action setup_plan(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--model", o->model, "Model file (configs/models/*.json)");
  app.add_option("--mesh", o->mesh, "Mesh file (configs/meshes/*.json)");
  app.add_option("--layers", o->layers, "Override the model's layer count");
  app.add_option("--solver", o->solver, "exact (optimal) | greedy (DTensor-style) | ilp (CBC)")
      ->capture_default_str();
  app.add_option("--memory-limit", o->memory_limit,
                 "Per-rank bytes for parameters, gradients, optimizer state and activations, "
                 "e.g. 80GiB (default: every parameter at its smallest shard)");
  app.add_option("--hardware", o->hardware,
                 "Hardware profile name or JSON file; default: the mesh file's, else h100-dgx");
  app.add_option("--cost-model", o->cost_model,
                 "Redistribution cost model: nccl | dtensor (PyTorch's)")
      ->capture_default_str();
  app.add_option("--time-limit", o->time_limit_s, "Solver time limit in seconds")
      ->capture_default_str();
  add_json_flag(app, o->json);
  return [o] { return run(*o); };
}

}  // namespace dtplan::cli
