#include "replay/replay_report_io.h"

#include <doctest/doctest.h>

#include <random>

namespace dtplan::replay {
namespace {

using collective::Collective;

// A report with `entries` random entries (not from a run: every field exercised).
ReplayReport random_report(std::mt19937_64& rng, int entries) {
  ReplayReport r;
  r.plan = "plan-" + std::to_string(rng() % 100) + ".json";
  r.kind = rng() % 2 == 0 ? PlanKind::kRedistribute : PlanKind::kModel;
  r.model = r.kind == PlanKind::kModel ? "llama3-tiny" : "";
  r.backend = rng() % 2 == 0 ? "mpi" : "fake";
  r.launcher = "mpirun (Open MPI)";
  r.world = 8;
  r.processes = 8;
  r.hardware = "h100-dgx";
  r.gpus_per_node = 4;
  r.timing = {static_cast<int>(rng() % 5), 1 + static_cast<int>(rng() % 20), 1};
  const Collective kinds[] = {Collective::kAllGather, Collective::kReduceScatter,
                              Collective::kAllReduce, Collective::kAllToAll};
  std::uniform_real_distribution<double> us(0.5, 5000.0);
  for (int i = 0; i < entries; ++i) {
    CollectiveJob j;
    j.collective = kinds[rng() % 4];
    j.op = collective::facts(j.collective).reduces ? sim::ReduceOp::kMax : sim::ReduceOp::kSum;
    j.mesh_dims = {static_cast<std::int32_t>(rng() % 2)};
    if (rng() % 3 == 0) {
      j.mesh_dims = {0, 1};
      j.flattened_mesh = "dp_tp";
    }
    j.group_size = 2;
    j.groups = {{0, 4}, {1, 5}, {2, 6}, {3, 7}};
    j.topology = cost::GroupTopology{2, 2, 1, 1};
    j.dtype = rng() % 2 == 0 ? core::DType::kBF16 : core::DType::kF32;
    j.bytes = 1024 * (1 + static_cast<std::int64_t>(rng() % 64));
    j.nccl_bytes = 2 * j.bytes;
    j.predicted_us = us(rng);
    j.count = 1 + static_cast<std::int64_t>(rng() % 9);
    j.first_use = "op 3 'w' input " + std::to_string(i) + " step 0";
    CallTiming t;
    t.median_us = us(rng);
    t.min_us = t.median_us * 0.9;
    t.max_us = t.median_us * 1.7;
    r.entries.push_back(
        make_entry(std::move(j), t, CallCheck{100, static_cast<std::int64_t>(i % 2), i % 3 == 0}));
  }
  r.totals = totals_of(r.entries);
  r.verify = {8,           entries,      1, 100 * entries, entries / 2, 0, entries % 2 == 0, 3,
              entries % 2, 50 * entries, 1};
  return r;
}

TEST_CASE("replay report io: round trip of random reports") {
  std::mt19937_64 rng(31337);
  for (int i = 0; i < 30; ++i) {
    const ReplayReport r = random_report(rng, i % 6);
    const std::string text = report_to_json(r);
    auto back = read_report_json(text, "r.json");
    REQUIRE_MESSAGE(back.ok(), (back.ok() ? std::string() : back.error().message));
    CHECK(*back == r);
    CHECK(report_to_json(*back) == text);
  }
}

TEST_CASE("replay report io: errors name the field") {
  std::mt19937_64 rng(5);
  const std::string text = report_to_json(random_report(rng, 2));
  auto broken = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    const auto at = t.find(from);
    REQUIRE(at != std::string::npos);
    t.replace(at, from.size(), to);
    auto r = read_report_json(t, "r.json");
    REQUIRE(!r.ok());
    CHECK(r.error().kind == core::ErrorKind::kBadInput);
    return r.error().message;
  };
  CHECK(broken("\"size\":", "\"sizes\":") == "r.json: field 'collectives[0].size': missing");
  CHECK(broken("\"kind\": \"", "\"kind\": \"x") ==
        "r.json: field 'kind': expected \"redistribute\" or \"model\", got \"x" +
            std::string(text.find("\"kind\": \"model\"") != std::string::npos ? "model"
                                                                              : "redistribute") +
            "\"");
  CHECK(broken("\"nodes\": 2", "\"nodes\": 3") ==
        "r.json: field 'collectives[0].nodes': nodes and ranks per node do not describe 2 ranks");
  CHECK(broken("\"measured_us\": ", "\"measured_us\": -") ==
        "r.json: field 'collectives[0].measured_us': times must be non-negative numbers");
  CHECK(read_report_json("[1]", "r.json").error().message ==
        "r.json: field '(document)': expected an object");
  CHECK(read_report_json("{", "r.json")
            .error()
            .message.starts_with("r.json: invalid JSON: parse error at line 1, column 2"));
  CHECK(load_report_file("/nonexistent/r.json").error().kind == core::ErrorKind::kBadInput);
}

}  // namespace
}  // namespace dtplan::replay
