#include "sim/step_report_io.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "support/plan_support.h"
#include "support/profiles.h"

namespace dtplan::sim {
namespace {

using Json = nlohmann::ordered_json;

std::vector<std::string> keys(const Json& object) {
  std::vector<std::string> out;
  for (const auto& [k, v] : object.items()) out.push_back(k);
  return out;
}

TEST_CASE("step report JSON: every redistribution, totals, timeline, memory and warnings") {
  const plan::Plan plan = testing::small_model_plan();
  SimulateOptions o;
  o.hardware = testing::profile("h100-dgx");
  o.data = true;
  const ModelSimulation simulation = simulate_model_plan(plan, o).value();
  const Timeline timeline = simulate_step(plan, {}).value();
  StepReport r = make_step_report(plan, simulation, timeline, std::nullopt, false);
  Json doc = to_json(r);
  CHECK(keys(doc) == std::vector<std::string>{"kind", "model", "ranks", "redistributions", "totals",
                                              "timeline", "memory", "warnings"});
  CHECK(doc["kind"] == "model");
  CHECK(doc["ranks"] == simulation.redistributions[0].world_size);
  REQUIRE(doc["redistributions"].size() == plan.redistributions.size());
  const Json& row = doc["redistributions"][1];
  CHECK(keys(row) == std::vector<std::string>{"index", "consumer", "slot", "producer", "src", "dst",
                                              "steps", "collectives", "cost_us", "verify"});
  CHECK(row["index"] == 1);
  CHECK(row["cost_us"] == plan.redistributions[1].plan.total_cost_us);
  CHECK(row["verify"]["wrong_elements"] == 0);
  CHECK(keys(doc["totals"]) ==
        std::vector<std::string>{"redistributions", "calls", "collectives", "cost_us"});
  CHECK(doc["timeline"] == timeline_json(timeline));
  CHECK(doc["timeline"]["critical_path"].size() == timeline.critical_path.size());
  CHECK_FALSE(doc["timeline"].contains("trace"));

  // A data run adds the verify totals; the files written are named in "timeline".
  r.data = true;
  r.trace_file = "t.json";
  r.html_file = "t.html";
  Throughput rate;
  rate.tokens_per_step = 64;
  r.throughput = rate;
  doc = to_json(r);
  CHECK(keys(doc["totals"]) == std::vector<std::string>{"redistributions", "calls", "collectives",
                                                        "cost_us", "verified", "distinct_verified",
                                                        "skipped", "wrong_elements",
                                                        "replicas_bitwise_equal"});
  CHECK(doc["timeline"]["trace"] == "t.json");
  CHECK(doc["timeline"]["html"] == "t.html");
  CHECK(doc["throughput"] == throughput_json(rate));
  CHECK(doc["throughput"]["tokens_per_step"] == 64);
}

TEST_CASE("step report JSON: a verify report") {
  VerifyReport v;
  v.ranks = 8;
  v.elements = 128;
  v.first_wrong = "rank 3 element 7";
  const Json j = verify_json(v);
  CHECK(keys(j) == std::vector<std::string>{"ranks", "wrong_elements", "replicas_bitwise_equal",
                                            "elements", "values", "exact", "replica_sets",
                                            "differing_replica_sets", "max_replica_variants",
                                            "max_error", "collectives", "first_wrong"});
  CHECK(j["ranks"] == 8);
  CHECK(j["collectives"] == 0);
  CHECK(j["first_wrong"] == "rank 3 element 7");
}

}  // namespace
}  // namespace dtplan::sim
