// dtplan simulate: replays a plan's collectives on the fake process group. A redistribution plan
// (what `dtplan redistribute --json` writes) gives one row per step: the collective, its mesh
// dims and group size, bytes and predicted time, the algorithm and protocol the plan priced, and
// what the fake process group ran per group (the NCCL model's algorithm and the reduction order
// it implies); then totals and warnings. A whole-model plan (`dtplan plan --out`, format
// dtplan-plan) gives one row per redistribution and totals. With --data every redistribution is
// also run on real data and verified (wrong elements, bitwise-equal replicas). Every plan is
// checked field by field as it is read and its steps re-priced from the hardware profile it
// names (checked_profile, redist_plan_check.h): a figure the profile does not give is refused.
//
//   dtplan simulate --plan plan.json [--ranks N] [--data [--values float|int] [--seed N]]
//                   [--trace FILE] [--html FILE] [--detail] [--json]

#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <string>

#include "command.h"
#include "core/limits.h"
#include "core/strings.h"
#include "core/text_file.h"
#include "core/text_table.h"
#include "core/units.h"
#include "elapsed_line.h"
#include "hardware_arg.h"
#include "number_arg.h"
#include "output.h"
#include "plan/plan_io.h"
#include "plan_text.h"
#include "progress_bar.h"
#include "redist/redist_plan_check.h"
#include "redist/redist_plan_io.h"
#include "report/nccl_format.h"
#include "sim/plan_simulation.h"
#include "sim/step_report.h"
#include "sim/step_report_io.h"
#include "simulate_timeline.h"
#include "simulated_step.h"
#include "verify_arg.h"

namespace dtplan::cli {

namespace {

struct Options {
  std::string plan;
  std::int64_t ranks = 0;
  bool data = false;
  VerifyArgs verify_args;
  TimelineFlags timeline;
  bool detail = false;
  bool json = false;
  bool quiet = false;
};

// The options of the flags; the caller sets the hardware profile the plan names.
core::Result<sim::SimulateOptions> simulate_options(const Options& o) {
  sim::SimulateOptions s;
  if (o.ranks < 0) {
    return core::Error::bad_input("--ranks: " + std::to_string(o.ranks) +
                                  " is negative (0, the default: the plan's mesh size)");
  }
  if (o.ranks > core::kMaxFakeWorldSize) {
    return core::Error::unsupported("--ranks: " + std::to_string(o.ranks) +
                                    " is more than the supported maximum of " +
                                    std::to_string(core::kMaxFakeWorldSize) + " fake ranks" +
                                    core::limit_note("kMaxFakeWorldSize"));
  }
  s.world_size = o.ranks;
  s.data = o.data;
  DTPLAN_TRY(s.verify, verify_options(o.verify_args));
  return s;
}

// "Tree x5, Ring x3": what the groups of one step ran as (first-seen order); "-" for none.
std::string ran_as(const std::vector<sim::TraceEntry>& groups, bool orders) {
  std::vector<std::pair<std::string, int>> counts;
  for (const sim::TraceEntry& e : groups) {
    const std::string name = orders ? std::string(sim::reduction_order_name(e.order))
                                    : std::string(cost::algorithm_name(e.algorithm));
    auto it =
        std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == name; });
    if (it == counts.end()) {
      counts.emplace_back(name, 1);
    } else {
      ++it->second;
    }
  }
  if (counts.empty()) return "-";
  std::vector<std::string> parts;
  for (const auto& [name, n] : counts) parts.push_back(name + " x" + std::to_string(n));
  return core::join(parts, ", ");
}

Json ran_as_json(const std::vector<sim::TraceEntry>& groups) {
  Json out = Json::array();
  for (const sim::TraceEntry& e : groups) {
    out.push_back({{"ranks", e.ranks},
                   {"algorithm", std::string(cost::algorithm_name(e.algorithm))},
                   {"order", std::string(sim::reduction_order_name(e.order))},
                   {"nccl_bytes", e.nccl_bytes}});
  }
  return out;
}

// ---- a redistribution plan ----

int run_redistribution(const Options& o, const std::string& text) {
  auto plan = redist::read_plan_json(text, o.plan);
  if (!plan.ok()) return report("simulate", plan.error());
  if (!o.timeline.html.empty()) {
    return report("simulate",
                  core::Error::bad_input("--html: " + o.plan +
                                         " is a redistribution plan, which has no step timeline (a "
                                         "whole-model plan from `dtplan plan --out` has)"));
  }
  auto options = simulate_options(o);
  if (!options.ok()) return report("simulate", options.error());
  auto profile = load_hardware_arg(plan->mesh.hardware, "the plan's mesh.hardware");
  if (!profile.ok()) return report("simulate", profile.error());
  options->hardware = std::move(profile).value();
  if (auto s = redist::check_plan_prices(*plan, *options->hardware); !s.ok()) {
    return report("simulate", s.error().with_context(o.plan));
  }
  auto sim = sim::simulate_redistribution(*plan, *options);
  if (!sim.ok()) return report("simulate", sim.error());
  std::int64_t collectives = 0;
  std::int64_t bytes = 0;
  for (std::size_t i = 0; i < plan->steps.size(); ++i) {
    collectives += static_cast<std::int64_t>(sim->steps[i].size());
    if (!sim->steps[i].empty()) bytes += plan->steps[i].bytes;
  }
  if (o.json) {
    Json doc;
    doc["kind"] = "redistribution";
    doc["src"] = placement::to_string(plan->src);
    doc["dst"] = placement::format_placement_list(plan->dst);
    doc["ranks"] = sim->world_size;
    Json steps = Json::array();
    for (std::size_t i = 0; i < plan->steps.size(); ++i) {
      const redist::PlanStep& s = plan->steps[i];
      Json j;
      j["step"] = i;
      j["collective"] = std::string(redist::step_kind_name(s.transform.kind));
      j["mesh_dims"] = s.transform.mesh_dims;
      j["flattened_mesh"] = s.transform.flattened() ? Json(s.transform.flattened_mesh) : Json();
      j["group_size"] = s.group_size;
      j["groups"] = sim->steps[i].size();
      j["bytes"] = s.bytes;
      j["cost_us"] = s.cost_us;
      j["algorithm"] = std::string(cost::algorithm_name(s.algorithm));
      j["protocol"] = std::string(cost::protocol_name(s.protocol));
      j["simulated"] = ran_as_json(sim->steps[i]);
      steps.push_back(std::move(j));
    }
    doc["steps"] = std::move(steps);
    doc["totals"] = {{"steps", plan->steps.size()},
                     {"collectives", collectives},
                     {"bytes", bytes},
                     {"cost_us", plan->total_cost_us}};
    Json warnings = Json::array();
    for (const redist::Warning& w : plan->warnings) warnings.push_back(redist::warning_json(w));
    doc["warnings"] = std::move(warnings);
    if (sim->verify) doc["verify"] = sim::verify_json(*sim->verify);
    if (!sim->skipped.empty()) doc["verify_skipped"] = sim->skipped;
    print_json(doc);
    return 0;
  }
  core::TextTable t({{"step", ""},
                     {"collective", "", core::Align::kLeft},
                     {"mesh_dims", "", core::Align::kLeft},
                     {"flattened", "", core::Align::kLeft},
                     {"group", "ranks"},
                     {"groups", ""},
                     {"bytes", "B"},
                     {"time", "us"},
                     {"algorithm", "", core::Align::kLeft},
                     {"protocol", "", core::Align::kLeft},
                     {"simulated", "", core::Align::kLeft},
                     {"order", "", core::Align::kLeft}},
                    "dtplan simulate: " + placement::to_string(plan->src) + " -> " +
                        placement::format_placement_list(plan->dst) + " on " +
                        std::to_string(sim->world_size) + " fake ranks");
  for (std::size_t i = 0; i < plan->steps.size(); ++i) {
    const redist::PlanStep& s = plan->steps[i];
    t.add_row({std::to_string(i), std::string(redist::step_kind_name(s.transform.kind)),
               mesh_dims_text(plan->mesh, s.transform.mesh_dims),
               s.transform.flattened() ? s.transform.flattened_mesh : "-",
               std::to_string(s.group_size), std::to_string(sim->steps[i].size()),
               std::to_string(s.bytes), report::nccl_float(s.cost_us, 8),
               std::string(cost::algorithm_name(s.algorithm)),
               std::string(cost::protocol_name(s.protocol)), ran_as(sim->steps[i], false),
               ran_as(sim->steps[i], true)});
  }
  std::string out = t.render();
  out += "# totals: " + std::to_string(plan->steps.size()) + " steps, " +
         std::to_string(collectives) + " group collectives, " + std::to_string(bytes) +
         " B per rank, " + core::format_fixed(plan->total_cost_us, 3) + " us\n";
  out += warning_lines(plan->mesh, plan->warnings);
  if (sim->verify) out += verify_line(*sim->verify);
  if (!sim->skipped.empty()) out += "# verify skipped: " + sim->skipped + "\n";
  print_text(out);
  return 0;
}

// ---- a whole-model plan: its redistributions, then the step timeline (sim/step_report.h) ----

int run_model_plan(const Options& o, const std::string& text) {
  auto plan = plan::read_plan_json(text, o.plan);
  if (!plan.ok()) return report("simulate", plan.error());
  auto options = simulate_options(o);
  if (!options.ok()) return report("simulate", options.error());
  auto profile = checked_profile(*plan);
  if (!profile.ok()) return report("simulate", profile.error().with_context(o.plan));
  options->hardware = std::move(profile).value();
  auto sim = sim::simulate_model_plan(*plan, *options);
  if (!sim.ok()) return report("simulate", sim.error());
  auto timeline = run_timeline(*plan, o.timeline);
  if (!timeline.ok()) return report("simulate", timeline.error());
  sim::StepReport r = sim::make_step_report(
      *plan, *sim, *timeline, step_throughput(*plan, *timeline, *options->hardware), o.data);
  r.trace_file = o.timeline.trace;
  r.html_file = o.timeline.html;
  if (o.json) {
    print_json(sim::to_json(r));
  } else {
    print_text(sim::to_text(r, o.detail ? sim::ReportDetail::kFull : sim::ReportDetail::kTop));
  }
  return 0;
}

int run(const Options& o) {
  if (o.plan.empty()) {
    return report("simulate", core::Error::bad_input("--plan: required (a plan JSON file)"));
  }
  auto text = core::read_text_file(o.plan, "plan file");
  if (!text.ok()) return report("simulate", text.error().with_context("--plan"));
  ElapsedLine progress(ProgressBar::wanted(o.json, o.quiet), "dtplan simulate");
  if (plan::is_model_plan_json(*text)) return run_model_plan(o, *text);
  return run_redistribution(o, *text);
}

}  // namespace

Action setup_simulate(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--plan", o->plan,
                 "Plan file: `dtplan redistribute --json` output or a whole-model plan "
                 "(`dtplan plan --out`)");
  add_number_option(app, "--ranks", o->ranks,
                    "World size of the fake process group (default: the plan's mesh)");
  app.add_flag("--data", o->data,
               "Also run every redistribution on real data and verify it (wrong elements, "
               "bitwise-equal replicas)");
  add_verify_flags(app, o->verify_args);
  add_timeline_flags(app, o->timeline);
  app.add_flag("--detail", o->detail,
               "Whole-model plan: list every redistribution and every communication on the "
               "critical path (default: the 10 costliest and the 10 longest; --json always lists "
               "all)");
  add_json_flag(app, o->json);
  add_quiet_flag(app, o->quiet);
  return [o] { return run(*o); };
}

}  // namespace dtplan::cli
