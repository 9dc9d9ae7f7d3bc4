#include "sim/step_report.h"

#include <doctest/doctest.h>

#include <string>

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

}  // namespace
}  // namespace dtplan::sim
