#include "sim/chrome_trace_io.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "support/plan_builder.h"

namespace dtplan::sim {
namespace {

using testing::all_gather;
using testing::PlanBuilder;
using testing::reduce_scatter;

plan::Plan sample_plan() {
  PlanBuilder b({2, 4}, {"dp", "tp"}, 4, {{"dp", "tp"}});
  const auto w = b.param("w", 0);
  const auto x = b.op("x", 12.5, {});
  const auto y = b.op("y", 40, {x, w}, plan::Phase::kForward, 0);
  b.redistribute(y, 1, {all_gather({0}, 30), all_gather({1}, 8)});
  const auto g = b.op("g", 60, {y}, plan::Phase::kBackward, 0);
  const auto o = b.op("grad", 0, {g}, plan::Phase::kBackward, -1, core::OpRole::kOutput);
  b.redistribute(o, 0, {reduce_scatter({0, 1}, 25, "dp_tp")});
  return b.build();
}

Timeline simulate(bool all_ranks) {
  TimelineOptions o;
  o.all_ranks = all_ranks;
  auto tl = simulate_step(sample_plan(), o);
  REQUIRE(tl.ok());
  return std::move(tl).value();
}

TEST_CASE("chrome trace: well-formed trace events, one track per stream") {
  const Timeline tl = simulate(true);
  const std::string text = chrome_trace_json(tl);
  const auto doc = nlohmann::json::parse(text);
  REQUIRE(doc.contains("traceEvents"));
  std::set<std::pair<std::int64_t, std::int64_t>> named_threads;
  std::set<std::int64_t> named_processes;
  std::size_t complete = 0;
  for (const auto& e : doc["traceEvents"]) {
    const std::string ph = e.at("ph");
    if (ph == "M") {
      if (e.at("name") == "thread_name") named_threads.emplace(e.at("pid"), e.at("tid"));
      if (e.at("name") == "process_name") named_processes.insert(e.at("pid").get<std::int64_t>());
      continue;
    }
    REQUIRE(ph == "X");
    ++complete;
    CHECK(e.at("dur").get<double>() >= 0);
    CHECK(e.at("ts").get<double>() >= 0);
    CHECK(e.at("ts").get<double>() + e.at("dur").get<double>() <= tl.step_time_us);
    CHECK(named_threads.count({e.at("pid"), e.at("tid")}) == 1);
    CHECK(e.at("args").contains("alone_us"));
    const std::string cat = e.at("cat");
    CHECK((cat == "compute" || cat == "collective" || cat == "local"));
  }
  CHECK(named_processes.size() == 8);
  CHECK(named_threads.size() == 8 * 4);  // compute, comm:dp, comm:tp, comm:dp_tp
  CHECK(complete == tl.program.tasks.size() * 8);
  CHECK(doc.at("otherData").at("step_time_us").get<double>() == tl.step_time_us);
  // Critical events are marked.
  std::size_t critical = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e.at("ph") == "X" && e.at("args").at("critical").get<bool>()) ++critical;
  }
  CHECK(critical == tl.critical_path.size());
}

TEST_CASE("chrome trace: deterministic bytes, representative ranks by default") {
  const std::string a = chrome_trace_json(simulate(false));
  const std::string b = chrome_trace_json(simulate(false));
  CHECK(a == b);
  const Timeline tl = simulate(false);
  // Every rank of this symmetric plan has the same summary: one class, rank 0.
  CHECK(tl.event_ranks == std::vector<std::int64_t>{0});
  const auto path = std::filesystem::temp_directory_path() / "dtplan_chrome_trace_test.json";
  REQUIRE(write_chrome_trace(tl, path).ok());
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  CHECK(buf.str() == a);
  std::filesystem::remove(path);
  auto bad = write_chrome_trace(tl, "/nonexistent-dir/x/trace.json");
  REQUIRE(!bad.ok());
  CHECK(bad.error().message.find("/nonexistent-dir/x/trace.json") != std::string::npos);
}

}  // namespace
}  // namespace dtplan::sim
