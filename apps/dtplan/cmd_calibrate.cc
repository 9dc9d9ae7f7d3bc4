// dtplan calibrate: a hardware profile whose measured tables reproduce nccl-tests logs or the
// results of `dtplan replay` (--out), or both.
//
//   dtplan calibrate --nccl-tests LOG... [--base h100-dgx] [--name NAME] [--out FILE] [--json]
//   dtplan calibrate --replay RESULT... [--base h100-dgx] [--name NAME] [--out FILE] [--json]

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "core/json_io.h"
#include "core/output_file.h"
#include "core/strings.h"
#include "core/text_file.h"
#include "core/text_table.h"
#include "core/units.h"
#include "cost/calibrate.h"
#include "cost/hardware_io.h"
#include "hardware_arg.h"
#include "output.h"
#include "replay/replay_calibration.h"
#include "replay/replay_report_io.h"

namespace dtplan::cli {

namespace {

struct Options {
  std::vector<std::string> logs;
  std::vector<std::string> replays;
  std::string base{kDefaultHardware};
  std::string name;
  std::string out;
  bool json = false;
};

core::Result<cost::Calibration> run_calibration(const Options& o) {
  DTPLAN_CHECK(core::check_no_control_chars(o.name, "--name"));  // it prints in tables
  DTPLAN_TRY(cost::HardwareProfile base, load_hardware_arg(o.base, "--base"));
  std::vector<cost::NcclTestsRun> runs;
  for (const std::string& log : o.logs) {
    auto parsed = cost::load_nccl_tests_log(log);
    if (!parsed.ok()) return parsed.error().with_context("--nccl-tests");
    for (auto& run : *parsed) runs.push_back(std::move(run));
  }
  for (const std::string& path : o.replays) {
    DTPLAN_TRY(replay::ReplayReport results, replay::load_report_file(path));
    std::vector<cost::NcclTestsRun> parsed = replay::replay_runs(results, path);
    if (parsed.empty()) {
      return core::Error::bad_input("--replay: " + path + " has no measured collective");
    }
    for (auto& run : parsed) runs.push_back(std::move(run));
  }
  if (runs.empty()) {
    return core::Error::bad_input("give --nccl-tests LOG... and/or --replay RESULT...");
  }
  std::string name = o.name.empty() ? base.name + "-calibrated" : o.name;
  DTPLAN_TRY(cost::Calibration cal, cost::calibrate(base, runs, name));
  if (!o.out.empty()) {
    DTPLAN_CHECK(core::write_output_file(o.out, cost::hardware_to_json(cal.profile), "--out"));
  }
  return cal;
}

void print_table(const Options& o, const cost::Calibration& cal) {
  std::string title = "dtplan calibrate: profile '" + cal.profile.name + "' from " + o.base + ", " +
                      std::to_string(cal.tables.size()) + " measured table" +
                      (cal.tables.size() == 1 ? "" : "s") +
                      (o.out.empty() ? " (not written: pass --out FILE)" : ", written to " + o.out);
  core::TextTable table({{"collective", "", core::Align::kLeft},
                         {"ranks", ""},
                         {"nodes", ""},
                         {"per_node", "ranks"},
                         {"points", ""},
                         {"max_error", "%"},
                         {"formula_error", "%"},
                         {"source", "", core::Align::kLeft}},
                        title);
  for (const cost::CalibratedTable& t : cal.tables) {
    std::string per_node = t.layout.uniform() ? std::to_string(t.layout.max_ranks_per_node)
                                              : std::to_string(t.layout.min_ranks_per_node) + "-" +
                                                    std::to_string(t.layout.max_ranks_per_node);
    table.add_row({std::string(collective::name(t.collective)), std::to_string(t.layout.ranks),
                   std::to_string(t.layout.nodes), per_node, std::to_string(t.points),
                   core::format_fixed(t.max_error_pct, 2),
                   core::format_fixed(t.formula_max_error_pct, 2), t.sources});
  }
  print_text(table.render());
}

void print_doc(const Options& o, const cost::Calibration& cal) {
  Json doc;
  doc["name"] = cal.profile.name;
  doc["base"] = o.base;
  doc["out"] = o.out.empty() ? Json(nullptr) : Json(o.out);
  Json tables = Json::array();
  for (const cost::CalibratedTable& t : cal.tables) {
    tables.push_back({{"collective", collective::name(t.collective)},
                      {"ranks", t.layout.ranks},
                      {"nodes", t.layout.nodes},
                      {"min_ranks_per_node", t.layout.min_ranks_per_node},
                      {"max_ranks_per_node", t.layout.max_ranks_per_node},
                      {"rows", t.rows},
                      {"points", t.points},
                      {"max_error_pct", t.max_error_pct},
                      {"formula_max_error_pct", t.formula_max_error_pct},
                      {"sources", t.sources}});
  }
  doc["tables"] = tables;
  // The profile as --out writes it, read back: dtplan's own output, so it parses.
  doc["profile"] = core::parse_json(cost::hardware_to_json(cal.profile), "the profile").value();
  print_json(doc);
}

}  // namespace

Action setup_calibrate(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--nccl-tests", o->logs, "nccl-tests output files (*_perf logs)")->expected(1, -1);
  app.add_option("--replay", o->replays, "dtplan replay results (replay --out FILE)")
      ->expected(1, -1);
  app.add_option("--base", o->base, "Hardware profile the tables are added to")
      ->capture_default_str();
  app.add_option("--name", o->name, "Name of the new profile (default: BASE-calibrated)");
  app.add_option("--out", o->out, "Write the new profile (JSON) to this file");
  add_json_flag(app, o->json);
  return [o] {
    auto cal = run_calibration(*o);
    if (!cal.ok()) return report("calibrate", cal.error());
    if (o->json) {
      print_doc(*o, cal.value());
    } else {
      print_table(*o, cal.value());
    }
    return 0;
  };
}

}  // namespace dtplan::cli
