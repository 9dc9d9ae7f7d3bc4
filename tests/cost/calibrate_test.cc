#include "cost/calibrate.h"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "cost/collective_model.h"
#include "cost/hardware_io.h"
#include "support/cli.h"
#include "support/profiles.h"

namespace dtplan::cost {
namespace {

using collective::Collective;

std::string data(const std::string& name) {
  return testing::source_path("tests/data/nccl-tests/" + name);
}

TEST_CASE("calibrate: round trip through a profile file reproduces every log within 5%") {
  HardwareProfile base = testing::profile("h100-dgx");
  std::vector<NcclTestsRun> runs;
  for (const char* log : {"all_reduce_perf_1x8_h100.log", "all_gather_perf_2x8_h100.log",
                          "reduce_scatter_perf_8x8_h100.log", "alltoall_perf_2x8_h100.log"}) {
    auto parsed = load_nccl_tests_log(data(log));
    REQUIRE_MESSAGE(parsed.ok(), (parsed.ok() ? std::string() : parsed.error().message));
    for (auto& r : parsed.value()) runs.push_back(std::move(r));
  }
  auto cal = calibrate(base, runs, "h100-lab");
  REQUIRE_MESSAGE(cal.ok(), (cal.ok() ? std::string() : cal.error().message));
  CHECK(cal.value().profile.name == "h100-lab");
  CHECK(cal.value().profile.measured.size() == 4);
  REQUIRE(cal.value().tables.size() == 4);
  for (const CalibratedTable& t : cal.value().tables) {
    CHECK(t.max_error_pct < 5.0);
    CHECK(t.points == t.rows);
  }
  // Write, read back, and price every logged size with the default model.
  std::string json = hardware_to_json(cal.value().profile);
  auto loaded = parse_hardware_json(json, "h100-lab.json");
  REQUIRE_MESSAGE(loaded.ok(), (loaded.ok() ? std::string() : loaded.error().message));
  CHECK(loaded.value() == cal.value().profile);
  auto model = make_collective_model(loaded.value(), {});
  for (const NcclTestsRun& run : runs) {
    for (const NcclTestsRow& row : run.rows) {
      auto c = model->cost(run.collective, row.size_bytes, run.layout);
      REQUIRE(c.ok());
      CHECK(c.value().algorithm == Algorithm::kMeasured);
      CHECK(std::abs(c.value().time_us - row.time_us) <= 0.05 * row.time_us);
    }
  }
  // Other layouts still use the formulas.
  CHECK(model->cost(Collective::kAllReduce, 1 << 20, uniform_topology(4, 8)).value().algorithm !=
        Algorithm::kMeasured);
}

NcclTestsRun run_of(std::vector<std::pair<std::int64_t, double>> rows, GroupTopology layout) {
  NcclTestsRun run;
  run.collective = Collective::kAllGather;
  run.layout = layout;
  run.source = "t.log:1";
  for (auto [s, t] : rows) run.rows.push_back({s, s / 4, t, 0, 0});
  return run;
}

TEST_CASE("calibrate: repeats are averaged and dips pooled into a non-decreasing table") {
  HardwareProfile base = testing::profile("h100-dgx");
  std::vector<NcclTestsRun> runs = {
      run_of({{1024, 20.0}, {2048, 22.0}, {4096, 21.0}, {8192, 30.0}}, uniform_topology(2, 8)),
      run_of({{1024, 22.0}}, uniform_topology(2, 8))};
  auto cal = calibrate(base, runs, "x").value();
  REQUIRE(cal.profile.measured.size() == 1);
  const auto& pts = cal.profile.measured[0].points;
  REQUIRE(pts.size() == 4);
  CHECK(pts[0].time_us == 21.0);  // mean of 20 and 22
  CHECK(pts[1].time_us == 21.5);  // 22 and 21 pooled
  CHECK(pts[2].time_us == 21.5);
  CHECK(pts[3].time_us == 30.0);
  CHECK(cal.tables[0].rows == 5);
  CHECK(cal.tables[0].points == 4);
  CHECK(cal.tables[0].max_error_pct == doctest::Approx(100.0 * 1.0 / 20.0));  // 21 vs 20
  // A second calibration replaces the table of the same key instead of adding one.
  std::vector<NcclTestsRun> newer = {run_of({{1024, 50.0}}, uniform_topology(2, 8))};
  auto again = calibrate(cal.profile, newer, "y");
  REQUIRE(again.ok());
  REQUIRE(again.value().profile.measured.size() == 1);
  CHECK(again.value().profile.measured[0].points[0].time_us == 50.0);
}

TEST_CASE("calibrate: input errors") {
  HardwareProfile base = testing::profile("h100-dgx");
  CHECK_FALSE(calibrate(base, std::vector<NcclTestsRun>{}, "x").ok());
  std::vector<NcclTestsRun> one = {run_of({{1024, 20.0}}, uniform_topology(2, 8))};
  CHECK_FALSE(calibrate(base, one, "").ok());
  std::vector<NcclTestsRun> crowded = {run_of({{1024, 20.0}}, uniform_topology(1, 16))};
  auto r = calibrate(base, crowded, "x");
  REQUIRE_FALSE(r.ok());
  CHECK(
      r.error().message.starts_with("t.log:1: 16 ranks (1 node x 16) puts 16 ranks on one "
                                    "host, but h100-dgx has 8 GPUs per node"));
}

}  // namespace
}  // namespace dtplan::cost
