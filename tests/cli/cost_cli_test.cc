#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support/cli.h"

namespace dtplan::testing {
namespace {

using nlohmann::json;

int count_rows(const std::string& out) {
  int rows = 0;
  std::size_t pos = 0;
  while (pos < out.size()) {
    std::size_t end = out.find('\n', pos);
    if (end == std::string::npos) end = out.size();
    if (end > pos && out[pos] != '#') ++rows;
    pos = end + 1;
  }
  return rows;
}

TEST_CASE("cli cost: nccl-tests-like table") {
  CliResult r = run_cli(
      "cost --collective all_reduce --ranks 16 --gpus-per-node 8 "
      "--hardware h100-dgx");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(
      r.out.starts_with("# dtplan cost: all_reduce on 16 ranks (2 nodes x 8), h100-dgx, "
                        "nccl model (NCCL 2.28)\n"));
  CHECK(r.out.find("size") != std::string::npos);
  CHECK(r.out.find("busbw") != std::string::npos);
  CHECK(r.out.find("(GB/s)") != std::string::npos);
  CHECK(r.out.find("channels") != std::string::npos);
  CHECK(r.out.find(" lat ") != std::string::npos);
  CHECK(r.out.find(" bw\n") != std::string::npos);
  CHECK(count_rows(r.out) == 31);                       // 8 B .. 8 GiB, x2
  CHECK(r.out.find("  25.20  ") != std::string::npos);  // 8 B: Tree/LL latency on 2 nodes
  CHECK(r.out.find("NVLSTree") != std::string::npos);
}

TEST_CASE("cli cost: JSON rows") {
  CliResult r = run_cli("cost --collective all_gather --ranks 8 --sizes 1KiB:1MiB:x4 --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  json doc = json::parse(r.out);
  CHECK(doc["collective"] == "all_gather");
  CHECK(doc["ranks"] == 8);
  CHECK(doc["nodes"] == 1);
  CHECK(doc["gpus_per_node"] == 8);
  CHECK(doc["hardware"] == "h100-dgx");
  CHECK(doc["model"] == "nccl");
  CHECK(doc["nccl_version"] == "2.28");
  REQUIRE(doc["rows"].size() == 6);
  const json& row = doc["rows"][0];
  for (const char* key : {"size", "count", "time_us", "algbw", "busbw", "algorithm", "protocol",
                          "channels", "lat_us", "bw_us"}) {
    CHECK(row.contains(key));
  }
  // 1 KiB all_gather: Ring/LL (ranks x 8 bytes per thread), one channel; time = lat + bw.
  CHECK(row["channels"] == 1);
  CHECK(row["time_us"].get<double>() ==
        doctest::Approx(row["lat_us"].get<double>() + row["bw_us"].get<double>()));
  CHECK(row["size"] == 1024);
  CHECK(row["count"] == 32);  // per-rank elements, as nccl-tests prints for all_gather
  CHECK(row["algorithm"] == "Ring");
  CHECK(row["protocol"] == "LL");
  double t = row["time_us"];
  CHECK(row["algbw"].get<double>() == doctest::Approx(1024 / 1e3 / t));
  CHECK(row["busbw"].get<double>() == doctest::Approx(1024 / 1e3 / t * 7 / 8));
  // Deterministic output.
  CHECK(run_cli("cost --collective all_gather --ranks 8 --sizes 1KiB:1MiB:x4 --json").out == r.out);
}

TEST_CASE("cli cost: explicit irregular groups, versions and models") {
  CliResult g = run_cli("cost --collective all_reduce --group 0,8,16,24 --sizes 1GiB --json");
  REQUIRE_MESSAGE(g.exit_code == 0, g.err);
  json doc = json::parse(g.out);
  CHECK(doc["nodes"] == 4);
  CHECK(doc["max_ranks_per_node"] == 1);
  CHECK(doc["group"] == json::array({0, 8, 16, 24}));
  CHECK(doc["rows"][0]["busbw"].get<double>() < 48.0);  // one GPU per node: NIC-bound

  CliResult old = run_cli(
      "cost --collective all_reduce --ranks 24 --sizes 256 --nccl-version "
      "2.21 --json");
  REQUIRE(old.exit_code == 0);
  CHECK(json::parse(old.out)["nccl_version"] == "2.21");
  CHECK(json::parse(old.out)["rows"][0]["algorithm"] == "Tree");
  CliResult ab = run_cli("cost --collective all_to_all --ranks 16 --model alpha-beta --sizes 1MiB");
  REQUIRE(ab.exit_code == 0);
  CHECK(ab.out.find("alpha-beta model") != std::string::npos);
  CHECK(ab.out.find("P2P") != std::string::npos);
  CliResult file = run_cli(
      "cost --collective reduce_scatter --ranks 8 --sizes 1MiB --hardware "
      "configs/hardware/a100-dgx.json --json");
  REQUIRE(file.exit_code == 0);
  CHECK(json::parse(file.out)["hardware"] == "a100-dgx");
}

TEST_CASE("cli cost: errors exit 2 naming the flag") {
  struct Case {
    const char* args;
    const char* needle;
  };
  const Case cases[] = {
      {"cost --collective all_redcue --ranks 8", "--collective: unknown collective"},
      {"cost --collective all_reduce", "--ranks: one of --ranks N or --group LIST is required"},
      {"cost --collective all_reduce --ranks 8 --group 0,1", "--group: --ranks and --group"},
      {"cost --collective all_reduce --ranks 0", "--ranks: group size must be at least 1"},
      {"cost --collective all_reduce --ranks x", "--ranks:"},
      {"cost --collective all_reduce --group 0,1,1", "--group: rank 1 appears twice"},
      {"cost --collective all_reduce --ranks 8 --gpus-per-node 16", "--gpus-per-node: 16"},
      {"cost --collective all_reduce --ranks 8 --sizes 64:8:x2", "--sizes:"},
      {"cost --collective all_reduce --ranks 8 --hardware h100-dgz", "did you mean 'h100-dgx'"},
      {"cost --collective all_reduce --ranks 8 --model magic", "--model: unknown cost model"},
      {"cost --collective all_reduce --ranks 8 --nccl-version banana", "--nccl-version:"},
      {"cost --collective all_reduce --ranks 8 --dtype float99", "--dtype:"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.args);
    CliResult r = run_cli(c.args);
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(r.err.find(c.needle) != std::string::npos, r.err);
    CHECK(r.out.empty());
  }
  CliResult old = run_cli("cost --collective all_reduce --ranks 8 --nccl-version 2.12");
  CHECK(old.exit_code == 3);
}

TEST_CASE("cli cost: a bad fabric field in a profile is one line, exit 2") {
  std::ifstream in(testing::source_path("configs/hardware/h100-dgx.json"));
  json doc = json::parse(in);
  doc["fabric"]["nic_efficiency_per_doubling"] = 0;
  const std::string path = "/tmp/dtplan_cost_cli_bad_fabric.json";
  std::ofstream(path) << doc.dump();
  CliResult r = run_cli("cost --collective all_reduce --ranks 16 --hardware " + path);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_MESSAGE(r.err.find("fabric.nic_efficiency_per_doubling: must be in (0, 1], got 0") !=
                    std::string::npos,
                r.err);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  std::filesystem::remove(path);
}

TEST_CASE("cli calibrate: writes a profile that reproduces the log") {
  std::string out = "/tmp/dtplan_calibrate_cli_test.json";
  std::remove(out.c_str());
  CliResult r = run_cli(
      "calibrate --nccl-tests tests/data/nccl-tests/all_gather_perf_2x8_h100.log "
      "tests/data/nccl-tests/all_reduce_perf_1x8_h100.log --base h100-dgx "
      "--name lab --out " +
      out + " --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  json doc = json::parse(r.out);
  CHECK(doc["name"] == "lab");
  CHECK(doc["out"] == out);
  REQUIRE(doc["tables"].size() == 2);
  for (const json& t : doc["tables"]) CHECK(t["max_error_pct"].get<double>() < 5.0);
  CHECK(doc["profile"]["measured"].size() == 2);

  CliResult cost = run_cli(
      "cost --collective all_gather --ranks 16 --sizes 1KiB:8GiB:x2 "
      "--hardware " +
      out + " --json");
  REQUIRE_MESSAGE(cost.exit_code == 0, cost.err);
  json rows = json::parse(cost.out)["rows"];
  CHECK(rows.size() == 24);
  for (const json& row : rows) CHECK(row["algorithm"] == "measured");
  CliResult formulas = run_cli("cost --collective all_gather --ranks 16 --sizes 1MiB --hardware " +
                               out + " --no-measured --json");
  CHECK(json::parse(formulas.out)["rows"][0]["algorithm"] != "measured");
  std::remove(out.c_str());

  CliResult table =
      run_cli("calibrate --nccl-tests tests/data/nccl-tests/alltoall_perf_2x8_h100.log");
  REQUIRE(table.exit_code == 0);
  CHECK(table.out.find("not written: pass --out FILE") != std::string::npos);
  CHECK(table.out.find("all_to_all") != std::string::npos);
}

TEST_CASE("cli calibrate: errors") {
  CliResult missing = run_cli("calibrate --nccl-tests /nonexistent/all_reduce_perf.log");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("cannot read the nccl-tests log /nonexistent/all_reduce_perf.log") !=
        std::string::npos);
  CliResult none = run_cli("calibrate");
  CHECK(none.exit_code == 2);
  CliResult base = run_cli(
      "calibrate --nccl-tests "
      "tests/data/nccl-tests/all_reduce_perf_1x8_h100.log --base nope");
  CHECK(base.exit_code == 2);
  CHECK(base.err.find("--base: no hardware profile 'nope'") != std::string::npos);
  CliResult bad = run_cli("calibrate --nccl-tests README.md");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("README.md") != std::string::npos);
}

}  // namespace
}  // namespace dtplan::testing
