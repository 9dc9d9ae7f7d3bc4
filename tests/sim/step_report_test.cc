#include "sim/step_report.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "support/plan_support.h"
#include "support/profiles.h"

namespace dtplan::sim {
namespace {

struct Simulated {
  plan::Plan plan = testing::small_model_plan();
  ModelSimulation simulation;
  Timeline timeline;
  explicit Simulated(bool data) {
    SimulateOptions o;
    o.hardware = testing::profile("h100-dgx");
    o.data = data;
    simulation = simulate_model_plan(plan, o).value();
    timeline = simulate_step(plan, {}).value();
  }
};

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_CASE("step report: the text's sections in order") {
  const Simulated s(false);
  const StepReport r = make_step_report(s.plan, s.simulation, s.timeline, std::nullopt, false);
  double cost = 0;
  for (const plan::PlanRedistribution& p : s.plan.redistributions) cost += p.plan.total_cost_us;
  CHECK(r.cost_us == cost);
  const std::string text = to_text(r);
  CHECK(text.starts_with("# dtplan simulate: " + s.plan.model + ": simulated step "));
  const std::size_t memory = text.find("# memory per rank (the plan's): peak ");
  const std::size_t table = text.find("# dtplan simulate: " + s.plan.model + ", 2 redistributions");
  const std::size_t totals = text.find("# totals: 2 redistributions, ");
  const std::size_t timeline = text.find("# step timeline");
  const std::size_t comm = text.find("# communication on the critical path");
  REQUIRE(memory != std::string::npos);
  CHECK(memory < table);
  CHECK(table < totals);
  CHECK(totals < timeline);
  CHECK(timeline < comm);
  CHECK(comm != std::string::npos);
  CHECK_FALSE(has(text, "# verify:"));
  CHECK_FALSE(has(text, "# throughput:"));
  CHECK_FALSE(has(text, "written to"));
  CHECK(text.ends_with("\n"));
}

TEST_CASE("step report: a data run's verify totals, throughput and the files written") {
  const Simulated s(true);
  Throughput rate;
  rate.tokens_per_s_per_gpu = 1234.56;
  rate.mfu = 0.4;
  rate.model_flops_per_token = 2e9;
  rate.parameters = 7;
  rate.tokens_per_step = 64;
  StepReport r = make_step_report(s.plan, s.simulation, s.timeline, rate, true);
  r.trace_file = "t.json";
  r.html_file = "t.html";
  const std::string text = to_text(r);
  CHECK(has(text,
            "# verify: 2 verified (2 distinct), 0 skipped for size, 0 wrong elements, "
            "replicas bitwise equal: yes\n"));
  CHECK(has(text,
            "# throughput: 1234.6 tokens/s per GPU, MFU 40.0% of the dense bf16 peak\n"
            "# model FLOPs per token: 2.00 G (6 x 7 parameters + attention 0.00 G), 64 "
            "tokens per step\n"));
  CHECK(has(text, "# trace written to t.json\n# html written to t.html\n"));
  CHECK(has(text, "  equal\n"));  // the replicas column of a verified row
}

TEST_CASE("step report: memory and timeline text") {
  plan::MemorySummary m;
  m.parameter_bytes = std::int64_t{3} << 30;
  m.gradient_bytes = std::int64_t{1} << 29;
  m.peak_bytes_per_rank = std::int64_t{5} << 30;
  CHECK(memory_text(m) ==
        "# memory per rank (the plan's): peak 5.00 GiB: parameters 3.00, gradients 0.50, "
        "optimizer 0.00, activations 0.00\n");
  const Simulated s(false);
  CHECK(critical_summary(s.timeline).rank == s.timeline.critical_rank);
  const std::string text = timeline_text(s.timeline);
  CHECK(text.starts_with("# step timeline\n"));
  CHECK(has(text, "# busy time per stream (rank " + std::to_string(s.timeline.critical_rank)));
  CHECK(has(text,
            "# critical path: " + std::to_string(s.timeline.critical_path.size()) + " tasks\n"));
}

// The first column of the rows of the table titled `title` (up to the next comment line).
std::vector<std::string> first_column(const std::string& text, const std::string& title) {
  std::vector<std::string> out;
  std::istringstream in(text.substr(text.find(title)));
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    if (line.starts_with("#")) {
      if (out.empty()) continue;  // the header
      break;
    }
    std::istringstream fields(line);
    std::string first;
    fields >> first;
    out.push_back(first);
  }
  return out;
}

TEST_CASE("step report: the 10 costliest redistributions by default, every one in full") {
  Simulated s(false);
  // 12 redistributions costing i % 6: ties broken by index.
  const plan::PlanRedistribution r0 = s.plan.redistributions[0];
  s.plan.redistributions.assign(12, r0);
  for (std::size_t i = 0; i < 12; ++i) {
    s.plan.redistributions[i].plan.total_cost_us = static_cast<double>(i % 6);
  }
  s.simulation.redistributions.resize(12);
  const StepReport r = make_step_report(s.plan, s.simulation, s.timeline, std::nullopt, false);
  const std::string title = "# dtplan simulate: " + s.plan.model + ", 12 redistributions";
  const std::string top = to_text(r, ReportDetail::kTop);
  CHECK(first_column(top, title + " (the 10 costliest)\n") ==
        std::vector<std::string>{"5", "11", "4", "10", "3", "9", "2", "8", "1", "7"});
  CHECK(top.find("# 2 more redistributions (--detail shows them all)\n# totals: 12 ") !=
        std::string::npos);
  const std::string full = to_text(r, ReportDetail::kFull);
  CHECK(full == to_text(r));  // complete unless asked otherwise
  CHECK(first_column(full, title + "\n") ==
        std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"});
  CHECK(full.find("more redistributions") == std::string::npos);
}

TEST_CASE("step report: the 10 longest communications on the critical path by default") {
  Simulated s(false);
  Timeline& tl = s.timeline;
  const auto is_comm = [&](const PathEntry& p) {
    return tl.program.tasks[static_cast<std::size_t>(p.task)].kind != TaskKind::kCompute;
  };
  const auto it = std::find_if(tl.critical_path.begin(), tl.critical_path.end(), is_comm);
  REQUIRE(it != tl.critical_path.end());
  const PathEntry comm = *it;
  // 12 more entries of that task: durations 1..4 us repeating, later starts for equal ones.
  for (int i = 0; i < 12; ++i) {
    PathEntry p = comm;
    p.start_us = 1000.0 + 10.0 * i;
    p.end_us = p.start_us + 1 + i % 4;
    tl.critical_path.push_back(p);
  }
  const auto total = static_cast<std::size_t>(
      std::count_if(tl.critical_path.begin(), tl.critical_path.end(), is_comm));
  const std::string top = timeline_text(tl, ReportDetail::kTop);
  const std::string title =
      "# communication on the critical path (the 10 longest of " + std::to_string(total) + ")\n";
  REQUIRE(top.find(title) != std::string::npos);
  CHECK(first_column(top, title).size() == 10);
  CHECK(top.ends_with("# " + std::to_string(total - 10) +
                      " more communication tasks on the critical path (--detail shows them "
                      "all)\n"));
  // The four 4 us entries (i = 3, 7, 11), earliest first, lead unless the original is longer.
  if (comm.end_us - comm.start_us < 4) {
    std::istringstream row(top.substr(top.find("\n", top.find("(us)", top.find(title))) + 1));
    std::string name, stream, rank, start;
    row >> name >> stream >> rank >> start;
    CHECK(start == "1030.00");
  }
  const std::string full = timeline_text(tl, ReportDetail::kFull);
  CHECK(first_column(full, "# communication on the critical path\n").size() == total);
  CHECK(full.find("more communication tasks") == std::string::npos);
}

}  // namespace
}  // namespace dtplan::sim
