// dtplan compare: plans side by side (plan/plan_compare.h). Each plan file (`dtplan plan --out`)
// is read and checked as `dtplan simulate` reads it, its step simulated with simulate's defaults
// (so the step times equal `simulate --plan`'s), and the comparison printed as one table with a
// column per plan, then the parameter families whose placements differ.
//
//   dtplan compare fsdp.json fsdp_tp.json [--json]
//
// Every plan is read before anything is printed: a missing, unreadable or invalid plan file (a
// redistribution plan or a model config among them: their "format" is not dtplan-plan) fails
// the command with one line naming it, and nothing is written on stdout.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "core/strings.h"
#include "core/text_table.h"
#include "core/units.h"
#include "output.h"
#include "plan/plan_compare.h"
#include "plan/plan_io.h"
#include "plan_text.h"
#include "simulated_step.h"

namespace dtplan::cli {

namespace {

struct Options {
  std::vector<std::string> plans;
  bool json = false;
};

// Each plan's file name; the whole path as given where two plans share a file name.
std::vector<std::string> labels(const std::vector<std::string>& paths) {
  std::vector<std::string> names;
  for (const std::string& p : paths) names.push_back(std::filesystem::path(p).filename().string());
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (std::count(names.begin(), names.end(), names[i]) > 1) return paths;
  }
  return names;
}

// "2x2 (dp_shard,tp)", or "2x2" for a mesh without dim names.
std::string mesh_text(const redist::MeshDescription& mesh) {
  std::vector<std::string> sizes;
  for (std::int64_t s : mesh.shape) sizes.push_back(std::to_string(s));
  std::string out = core::join(sizes, "x");
  if (!mesh.names.empty()) out += " (" + core::join(mesh.names, ",") + ")";
  return out;
}

std::string us(double v) { return core::format_fixed(v, 2); }

std::string ratio_text(const std::optional<double>& r) {
  return r ? "x" + core::format_fixed(*r, 3) : "-";
}

std::string collective_text(const plan::CollectiveTotal& t) {
  return t.count == 0 ? "-" : std::to_string(t.count) + " x, " + bytes_text(t.bytes);
}

Json collective_totals_json(const std::vector<plan::CollectiveTotal>& totals) {
  Json out = Json::array();
  for (const plan::CollectiveTotal& t : totals)
    out.push_back({{"count", t.count}, {"bytes", t.bytes}});
  return out;
}

Json optional_json(const std::optional<double>& v) { return v ? Json(*v) : Json(); }

Json comparison_json(const std::vector<plan::ComparedPlan>& plans, const plan::PlanComparison& c) {
  Json doc;
  Json columns = Json::array();
  for (std::size_t i = 0; i < plans.size(); ++i) {
    const plan::ComparedPlan& p = plans[i];
    Json j;
    j["file"] = p.label;
    j["model"] = p.plan.model;
    j["mesh"] = {{"shape", p.plan.mesh.shape}, {"names", p.plan.mesh.names}};
    j["hardware"] = p.plan.mesh.hardware;
    j["step_time_us"] = p.step.step_time_us;
    j["step_time_ratio"] = optional_json(c.step_time_ratio[i]);
    j["compute_us"] = p.step.compute_us;
    j["communication_us"] = p.step.communication_us;
    j["exposed_communication_us"] = p.step.exposed_communication_us;
    j["tokens_per_s_per_gpu"] = optional_json(p.step.tokens_per_s_per_gpu);
    j["mfu"] = optional_json(p.step.mfu);
    j["memory"] = plan::memory_json(p.plan.memory);
    j["peak_memory_ratio"] = optional_json(c.peak_memory_ratio[i]);
    columns.push_back(std::move(j));
  }
  doc["plans"] = std::move(columns);
  Json kinds = Json::array();
  for (const plan::CollectiveKindRow& r : c.by_kind) {
    kinds.push_back({{"collective", std::string(collective::name(r.kind))},
                     {"plans", collective_totals_json(r.plans)}});
  }
  Json dims = Json::array();
  for (const plan::CollectiveDimsRow& r : c.by_mesh_dims) {
    dims.push_back({{"mesh_dims", r.mesh_dims}, {"plans", collective_totals_json(r.plans)}});
  }
  doc["collectives"] = {{"by_kind", std::move(kinds)}, {"by_mesh_dims", std::move(dims)}};
  Json differing = Json::array();
  for (const plan::ParameterDifference& d : c.parameters.differing) {
    differing.push_back({{"family", d.family}, {"placements", d.placements}});
  }
  doc["parameters"] = {{"models", std::string(plan::model_match_name(c.parameters.models))},
                       {"compared_families", c.parameters.compared},
                       {"unmatched_families", c.parameters.unmatched},
                       {"differing", std::move(differing)}};
  return doc;
}

// The table's rows, a label and one cell per plan.
struct Rows {
  core::TextTable table;
  std::size_t plans;
  template <typename F>
  void add(const std::string& label, F cell) {
    std::vector<std::string> cells = {label};
    for (std::size_t i = 0; i < plans; ++i) cells.push_back(cell(i));
    table.add_row(std::move(cells));
  }
};

std::vector<core::Column> columns(const std::vector<plan::ComparedPlan>& plans) {
  std::vector<core::Column> out = {{"", "", core::Align::kLeft}};
  for (const plan::ComparedPlan& p : plans) out.push_back({p.label});
  return out;
}

std::string comparison_text(const std::vector<plan::ComparedPlan>& plans,
                            const plan::PlanComparison& c) {
  Rows r{core::TextTable(columns(plans), "dtplan compare: " + std::to_string(plans.size()) +
                                             " plans, ratios against the first"),
         plans.size()};
  auto plan = [&](std::size_t i) -> const plan::Plan& { return plans[i].plan; };
  auto step = [&](std::size_t i) -> const plan::StepFigures& { return plans[i].step; };
  auto mem = [&](std::size_t i) -> const plan::MemorySummary& { return plan(i).memory; };
  r.add("model", [&](std::size_t i) { return plan(i).model; });
  r.add("mesh", [&](std::size_t i) { return mesh_text(plan(i).mesh); });
  r.add("step time (us)", [&](std::size_t i) { return us(step(i).step_time_us); });
  r.add("  vs first", [&](std::size_t i) { return ratio_text(c.step_time_ratio[i]); });
  r.add("compute (us)", [&](std::size_t i) { return us(step(i).compute_us); });
  r.add("communication (us)", [&](std::size_t i) { return us(step(i).communication_us); });
  r.add("exposed communication (us)",
        [&](std::size_t i) { return us(step(i).exposed_communication_us); });
  r.add("tokens/s per GPU", [&](std::size_t i) {
    const auto& v = step(i).tokens_per_s_per_gpu;
    return v ? core::format_fixed(*v, 1) : std::string("-");
  });
  r.add("MFU (%)", [&](std::size_t i) {
    const auto& v = step(i).mfu;
    return v ? core::format_fixed(100 * *v, 1) : std::string("-");
  });
  r.add("peak memory per rank",
        [&](std::size_t i) { return bytes_text(mem(i).peak_bytes_per_rank); });
  r.add("  vs first", [&](std::size_t i) { return ratio_text(c.peak_memory_ratio[i]); });
  r.add("  limit", [&](std::size_t i) {
    return mem(i).limit_bytes == 0 ? std::string("none") : bytes_text(mem(i).limit_bytes);
  });
  r.add("  parameters", [&](std::size_t i) { return bytes_text(mem(i).parameter_bytes); });
  r.add("  gradients", [&](std::size_t i) { return bytes_text(mem(i).gradient_bytes); });
  r.add("  optimizer", [&](std::size_t i) { return bytes_text(mem(i).optimizer_bytes); });
  r.add("  activations", [&](std::size_t i) { return bytes_text(mem(i).activation_bytes); });
  for (const plan::CollectiveKindRow& k : c.by_kind) {
    r.add(std::string(collective::name(k.kind)) + " (calls, bytes per rank)",
          [&](std::size_t i) { return collective_text(k.plans[i]); });
  }
  for (const plan::CollectiveDimsRow& d : c.by_mesh_dims) {
    r.add("on " + core::join(d.mesh_dims, ",") + " (calls, bytes per rank)",
          [&](std::size_t i) { return collective_text(d.plans[i]); });
  }
  std::string out = r.table.render() + "\n";
  const plan::ParameterComparison& p = c.parameters;
  if (p.models == plan::ModelMatch::kDiffer) {
    out += "# the models differ: only the " + std::to_string(p.compared) +
           " parameter families every plan has are compared (" + std::to_string(p.unmatched) +
           " are not)\n";
  }
  core::TextTable diff(columns(plans),
                       "parameters whose placements differ: " + std::to_string(p.differing.size()) +
                           " of " + std::to_string(p.compared) + " families");
  diff.add_row([&] {
    std::vector<std::string> cells = {"mesh"};
    for (const plan::ComparedPlan& cp : plans) cells.push_back(mesh_text(cp.plan.mesh));
    return cells;
  }());
  for (const plan::ParameterDifference& d : p.differing) {
    std::vector<std::string> cells = {d.family};
    cells.insert(cells.end(), d.placements.begin(), d.placements.end());
    diff.add_row(std::move(cells));
  }
  return out + diff.render();
}

int run(const Options& o) {
  if (o.plans.size() < 2) {
    return report("compare",
                  core::Error::bad_input("PLAN: " + std::to_string(o.plans.size()) +
                                         " plan file(s) given; compare needs two or more"));
  }
  std::vector<plan::ComparedPlan> plans;
  const std::vector<std::string> names = labels(o.plans);
  for (std::size_t i = 0; i < o.plans.size(); ++i) {
    auto p = load_simulated_plan(o.plans[i]);
    if (!p.ok()) return report("compare", p.error());
    p->label = names[i];
    plans.push_back(std::move(p).value());
  }
  auto c = plan::compare_plans(plans);
  if (!c.ok()) return report("compare", c.error());
  if (o.json) {
    print_json(comparison_json(plans, *c));
  } else {
    print_text(comparison_text(plans, *c));
  }
  return 0;
}

}  // namespace

Action setup_compare(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("plans", o->plans,
                 "Two or more plan files (`dtplan plan --out`); the first is the reference of "
                 "the ratios")
      ->type_name("PLAN");
  add_json_flag(app, o->json);
  return [o] { return run(*o); };
}

}  // namespace dtplan::cli
