// dtplan explain: one op of a plan written by `dtplan plan --out`: its chosen strategy (output
// and input placements, compute time), the redistributions into it, and every strategy it had,
// each priced as the whole plan's objective if that op alone switched to it with every other
// op's choice fixed (strategy/op_alternatives.h), sorted by the difference, then by index.
//
//   dtplan explain --plan plan.json --op layers.0.attention.wq.einsum [--model FILE] [--json]
//
// The problem is rebuilt from what the plan records: its model (a shipped name; --model FILE
// for another file) with its layer count and training step, its mesh, hardware profile, memory
// limit and redistribution cost model. Pins of --parallelize are not recorded, so alternatives
// they ruled out are priced like any other. A plan the rebuilt model does not match (another
// --batch or --seq-len, an op or strategy it lacks) is exit 2 naming the op.
// An unknown --op is exit 2 naming it with the closest op names; a bad plan file is exit 2.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "command.h"
#include "config_args.h"
#include "core/strings.h"
#include "core/text_table.h"
#include "core/units.h"
#include "graph/model_io.h"
#include "mesh/mesh_io.h"
#include "output.h"
#include "plan/plan_io.h"
#include "plan/step_runs.h"
#include "plan_text.h"
#include "simulated_step.h"
#include "strategy/op_alternatives.h"
#include "strategy/torchtitan_pins.h"

namespace dtplan::cli {

namespace {

struct Options {
  std::string plan;
  std::string op;
  std::string model;  // overrides the plan's model name
  bool json = false;
};

// How many close names an unknown --op suggests.
constexpr std::size_t kSuggestions = 3;

// "--op 'x': no op of that name in P; closest: a, b, c".
core::Error unknown_op(const Options& o, const plan::Plan& plan) {
  std::vector<std::pair<std::size_t, std::string>> ranked;
  for (const plan::PlanOp& op : plan.ops) {
    ranked.emplace_back(core::edit_distance(o.op, op.name), op.name);
  }
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> close;
  for (std::size_t i = 0; i < ranked.size() && i < kSuggestions; ++i) {
    close.push_back(ranked[i].second);
  }
  return core::Error::bad_input("--op '" + o.op + "': no op of that name in " + o.plan +
                                (close.empty() ? "" : "; closest: " + core::join(close, ", ")));
}

// The plan's mesh as a mesh config (its dims, flattened meshes and rank map).
mesh::MeshConfig mesh_config(const redist::MeshDescription& m) {
  mesh::MeshConfig c;
  c.shape = m.shape;
  c.names = m.names;
  c.hardware = m.hardware;
  for (const redist::FlattenedMeshInfo& f : m.flattened) {
    mesh::FlattenSpec spec;
    spec.name = f.name;
    for (std::int32_t d : f.mesh_dims) {
      spec.dims.push_back(m.names.empty() ? std::to_string(d)
                                          : m.names[static_cast<std::size_t>(d)]);
    }
    c.flatten.push_back(std::move(spec));
  }
  if (!m.ranks.empty()) c.ranks = m.ranks.values();
  return c;
}

// The model the plan was made from, with its layer count and training step.
core::Result<graph::Model> plan_model(const Options& o, const plan::Plan& plan) {
  const std::string flag = o.model.empty() ? "the plan's model" : "--model";
  DTPLAN_TRY(const std::string file,
             config_file_arg(ConfigKind::kModel, o.model.empty() ? plan.model : o.model, flag));
  DTPLAN_TRY(graph::Model model, graph::load_model(file, {}));
  if (model.llama3) {
    const core::TrainingOptions& t = plan.training;
    DTPLAN_TRY(model, graph::load_model(file, {.layers = plan.layers,
                                               .checkpoint = t.checkpoint,
                                               .grad_accum = t.grad_accum,
                                               .grad_sync = t.grad_sync,
                                               .execution = t.execution,
                                               .float8 = t.float8}));
  }
  if (model.graph.name().empty()) model.graph.set_name(model.name);
  return model;
}

// What explain prints: the rebuilt problem's view of one op.
struct Explained {
  plan::Plan plan;
  std::size_t op = 0;  // index into plan.ops
  strategy::OpAlternatives alternatives;
};

core::Result<Explained> explain(const Options& o) {
  if (o.plan.empty()) {
    return core::Error::bad_input("--plan: required (a plan file written by `dtplan plan --out`)");
  }
  if (o.op.empty()) return core::Error::bad_input("--op: required (an op name of the plan)");
  Explained out;
  DTPLAN_TRY(out.plan, plan::load_plan_file(o.plan));
  const plan::Plan& plan = out.plan;
  auto it = std::find_if(plan.ops.begin(), plan.ops.end(),
                         [&](const plan::PlanOp& op) { return op.name == o.op; });
  if (it == plan.ops.end()) return unknown_op(o, plan);
  out.op = static_cast<std::size_t>(it - plan.ops.begin());
  auto profile = checked_profile(plan);
  if (!profile.ok()) return profile.error().with_context(o.plan);
  DTPLAN_TRY(graph::Model model, plan_model(o, plan));
  DTPLAN_TRY(mesh::LoadedMesh mesh, mesh::build_mesh(mesh_config(plan.mesh), o.plan + ": mesh"));
  strategy::ModelPlanOptions options;
  options.training = model.training;
  options.gpus_per_node = plan.mesh.gpus_per_node;
  if (plan.memory.limit_bytes > 0) options.memory_limit_bytes = plan.memory.limit_bytes;
  if (!plan.redistributions.empty()) {
    DTPLAN_TRY(options.cost_model, redist::parse_cost_model(plan.redistributions[0].plan.model,
                                                            o.plan + ": redistributions[0].model"));
  }
  for (const plan::PlanOp& op : plan.ops) {
    for (const placement::Placement& p : op.placements) {
      options.enumerate.strided_params = options.enumerate.strided_params || p.is_strided_shard();
    }
  }
  options.enumerate.context_parallel_dims = strategy::context_parallel_dims(plan.mesh.names);
  options.solve.threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  DTPLAN_TRY(strategy::PlanProblem pp,
             strategy::export_plan_problem(model.graph, mesh.root, *profile, options));
  auto choice = strategy::plan_choice(model.graph, pp.strategies, plan);
  if (!choice.ok()) return choice.error().with_context(o.plan);
  auto alternatives = strategy::op_alternatives(pp, *choice, *model.graph.find(o.op));
  if (!alternatives.ok()) return alternatives.error().with_context("--op '" + o.op + "'");
  out.alternatives = std::move(alternatives).value();
  return out;
}

std::string us(double v) { return core::format_fixed(v, 2); }

Json number_json(double v) { return std::isfinite(v) ? Json(v) : Json(); }

// The plan's redistributions into op `op`, in slot order.
std::vector<const plan::PlanRedistribution*> inputs_of(const plan::Plan& plan, std::size_t op) {
  std::vector<const plan::PlanRedistribution*> out;
  for (const plan::PlanRedistribution& r : plan.redistributions) {
    if (static_cast<std::size_t>(r.consumer) == op) out.push_back(&r);
  }
  return out;
}

Json explained_json(const Explained& e) {
  const plan::Plan& plan = e.plan;
  const plan::PlanOp& op = plan.ops[e.op];
  Json doc;
  doc["op"] = {{"name", op.name},
               {"kind", op.op},
               {"phase", plan::phase_name(op.phase)},
               {"layer", op.layer},
               {"strategy", op.strategy},
               {"strategy_index", e.alternatives.chosen},
               {"options", op.options},
               {"placements", placements_text(op.placements)},
               {"compute_us", op.compute_us},
               {"runs", plan::op_runs(plan, e.op)}};
  doc["objective_us"] = number_json(e.alternatives.objective_us);
  doc["plan_objective_us"] = plan.solver.objective_us;
  doc["optimal"] = plan.solver.optimal;
  doc["chosen_infeasible"] = e.alternatives.chosen_infeasible;
  Json inputs = Json::array();
  for (const plan::PlanRedistribution* r : inputs_of(plan, e.op)) {
    inputs.push_back({{"slot", r->slot},
                      {"producer", plan.ops[static_cast<std::size_t>(r->producer)].name},
                      {"src", placement::format_placement_list(r->plan.src)},
                      {"dst", placement::format_placement_list(r->plan.dst)},
                      {"steps", r->plan.steps.size()},
                      {"cost_us", r->plan.total_cost_us},
                      {"runs", plan::redistribution_runs(plan, *r)}});
  }
  doc["redistributions"] = std::move(inputs);
  Json alts = Json::array();
  for (const strategy::Alternative& a : e.alternatives.alternatives) {
    alts.push_back({{"strategy_index", a.strategy},
                    {"strategy", a.text},
                    {"chosen", a.strategy == e.alternatives.chosen},
                    {"compute_us", number_json(a.compute_us)},
                    {"objective_us", number_json(a.objective_us)},
                    {"delta_us", number_json(a.delta_us)},
                    {"feasible", a.infeasible.empty()},
                    {"infeasible", a.infeasible}});
  }
  doc["alternatives"] = std::move(alts);
  return doc;
}

std::string explained_text(const Explained& e) {
  const plan::Plan& plan = e.plan;
  const plan::PlanOp& op = plan.ops[e.op];
  const strategy::OpAlternatives& a = e.alternatives;
  std::string text = "# dtplan explain: " + op.name + " (" + op.op + ", " +
                     std::string(plan::phase_name(op.phase)) +
                     (op.layer >= 0 ? ", layer " + std::to_string(op.layer) : "") + ") of " +
                     plan.model + "\n# chosen: strategy " + std::to_string(a.chosen) + " of " +
                     std::to_string(op.options) + ": " + op.strategy + "\n# output placements " +
                     placements_text(op.placements) + ", compute " + us(op.compute_us) +
                     " us per run x " + std::to_string(plan::op_runs(plan, e.op)) +
                     " runs per step\n# objective with the plan's choices: " + us(a.objective_us) +
                     " us (the plan's solver " + plan.solver.name + ": " +
                     us(plan.solver.objective_us) + " us" +
                     (plan.solver.optimal ? ", optimal" : "") + ")\n";
  if (!a.chosen_infeasible.empty()) {
    text += "# the plan's own choices break a constraint of the rebuilt problem: " +
            a.chosen_infeasible + "\n";
  }
  core::TextTable in({{"slot", ""},
                      {"producer", "", core::Align::kLeft},
                      {"from -> to", "", core::Align::kLeft},
                      {"steps", ""},
                      {"time", "us"},
                      {"runs", ""}},
                     "redistributions into it");
  for (const plan::PlanRedistribution* r : inputs_of(plan, e.op)) {
    in.add_row({std::to_string(r->slot), plan.ops[static_cast<std::size_t>(r->producer)].name,
                placement::format_placement_list(r->plan.src) + " -> " +
                    placement::format_placement_list(r->plan.dst),
                std::to_string(r->plan.steps.size()), us(r->plan.total_cost_us),
                std::to_string(plan::redistribution_runs(plan, *r))});
  }
  text += in.rows() == 0 ? "# (no redistributions into it)\n" : in.render();
  core::TextTable t({{"index", ""},
                     {"strategy", "", core::Align::kLeft},
                     {"compute", "us"},
                     {"objective", "us"},
                     {"delta", "us"},
                     {"", "", core::Align::kLeft}},
                    "every strategy of the op, the rest of the plan fixed (by delta, then index)");
  for (const strategy::Alternative& alt : a.alternatives) {
    const std::string note = alt.strategy == a.chosen ? "chosen"
                             : alt.infeasible.empty() ? ""
                                                      : "infeasible: " + alt.infeasible;
    t.add_row({std::to_string(alt.strategy), alt.text, us(alt.compute_us), us(alt.objective_us),
               (alt.delta_us > 0 ? "+" : "") + us(alt.delta_us), note});
  }
  return text + t.render();
}

int run(const Options& o) {
  auto explained = explain(o);
  if (!explained.ok()) return report("explain", explained.error());
  if (o.json) {
    print_json(explained_json(*explained));
  } else {
    print_text(explained_text(*explained));
  }
  return 0;
}

}  // namespace

Action setup_explain(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--plan", o->plan, "Plan file written by `dtplan plan --out`");
  app.add_option("--op", o->op, "The op to explain, by name (as the plan's ops name it)");
  app.add_option("--model", o->model,
                 "Model to rebuild the problem from (default: the plan's model, a shipped name)");
  add_json_flag(app, o->json);
  return [o] { return run(*o); };
}

}  // namespace dtplan::cli
