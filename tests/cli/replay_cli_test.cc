#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "support/cli.h"
#include "support/temp_dir.h"

namespace dtplan::testing {
namespace {

using nlohmann::json;

const std::string kPlan = "/tmp/dtplan_replay_cli_plan.json";
const std::string kResults = "/tmp/dtplan_replay_cli_results.json";
const std::string kProfile = "/tmp/dtplan_replay_cli_profile.json";

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// all_reduce(avg) on tp, all_gather on cp, all_to_all on dp, each in groups of 2.
void write_plan() {
  std::ofstream(kPlan) << cli_output(
      "redistribute --mesh 2,2,2 --names dp,cp,tp --flatten dp,tp --shape 24,16,8 --dtype bf16 "
      "--from 'S(0),S(1),P(avg)' --to 'S(1),S(0),R' --json");
}

TEST_CASE("cli replay: fake backend, results file, calibrate --replay round trip") {
  write_plan();
  std::remove(kResults.c_str());
  CliResult r =
      run_cli("replay --plan " + kPlan + " --iters 3 --warmup 1 --out " + kResults + " --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const json doc = json::parse(r.out);
  CHECK(json_keys(r.out) == std::vector<std::string>{"plan", "kind", "model", "backend", "launcher",
                                                     "world", "processes", "hardware",
                                                     "gpus_per_node", "timing", "collectives",
                                                     "totals", "verify", "compute"});
  CHECK(doc["compute"].is_null());
  CHECK(doc["backend"] == "fake");
  CHECK(doc["kind"] == "redistribute");
  CHECK(doc["world"] == 8);
  CHECK(doc["processes"] == 1);
  CHECK(doc["timing"] ==
        json{{"warmup", 1}, {"iters", 3}, {"launches", 1}, {"statistic", "median"}});
  REQUIRE(doc["collectives"].size() == 3);
  for (const json& c : doc["collectives"]) {
    CHECK(c["check"]["wrong_elements"] == 0);
    CHECK(c["group_size"] == 2);
    CHECK(c["measured_us"].get<double>() > 0);
  }
  CHECK(doc["collectives"][0]["collective"] == "all_reduce");
  CHECK(doc["collectives"][0]["op"] == "avg");
  CHECK(doc["verify"]["redistributions"] == 1);
  CHECK(doc["verify"]["wrong_elements"] == 0);
  CHECK(doc["verify"]["fake_mismatches"] == 0);
  CHECK(doc["verify"]["replicas_bitwise_equal"] == true);
  CHECK(json::parse(read_file(kResults)) == doc);

  std::remove(kProfile.c_str());
  CliResult cal =
      run_cli("calibrate --replay " + kResults + " --name lab --out " + kProfile + " --json");
  REQUIRE_MESSAGE(cal.exit_code == 0, cal.err);
  const json fitted = json::parse(cal.out);
  REQUIRE(fitted["tables"].size() == 3);
  for (const json& t : fitted["tables"]) CHECK(t["max_error_pct"].get<double>() < 5.0);
  // The profile prices every measured collective within 5% of what was measured.
  for (const json& c : doc["collectives"]) {
    CliResult cost = run_cli("cost --collective " + c["collective"].get<std::string>() +
                             " --ranks 2 --gpus-per-node 8 --sizes " +
                             std::to_string(c["size"].get<std::int64_t>()) + " --hardware " +
                             kProfile + " --json");
    REQUIRE_MESSAGE(cost.exit_code == 0, cost.err);
    const json row = json::parse(cost.out)["rows"][0];
    CHECK(row["algorithm"] == "measured");
    const double measured = c["measured_us"].get<double>();
    CHECK(std::abs(row["time_us"].get<double>() - measured) <= 0.05 * measured);
  }
  std::remove(kProfile.c_str());
  std::remove(kResults.c_str());
}

TEST_CASE("cli replay: table output and a whole-model plan") {
  CliResult r =
      run_cli("replay --plan tests/data/replay/small_model_plan.json --iters 2 --warmup 0");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(
      r.out.starts_with("# dtplan replay: tests/data/replay/small_model_plan.json (model "
                        "hand-made), backend fake, 8 ranks in 1 process, launcher none\n"));
  CHECK(r.out.find("all_gather ") != std::string::npos);
  CHECK(r.out.find("all_reduce(sum) ") != std::string::npos);
  CHECK(r.out.find("# verify: 2 redistributions run end to end on 8 ranks (0 skipped)") !=
        std::string::npos);
  CHECK(r.out.find(", 0 wrong, 0 differ from the fake process group; replicas bitwise equal: "
                   "yes") != std::string::npos);
}

TEST_CASE("cli replay: a context-parallel plan reduces RoPE's complex gradient as pairs of reals") {
  // dp_shard=2, cp=2: dK is reduce-scattered over cp inside RoPE's backward, as c64.
  TempDir dir("replay_cp");
  const std::string plan = dir.at("cp.json");
  cli_output(
      "plan --model configs/models/llama3-tiny.json --layers 1 --mesh "
      "configs/meshes/dp_shard-cp-2x2.json --parallelize torchtitan --out " +
      plan);
  REQUIRE(file_text(plan).find("\"c64\"") != std::string::npos);
  CliResult r = run_cli("replay --plan " + plan + " --backend fake --iters 1 --warmup 0");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("reduce_scatter(sum) ") != std::string::npos);
  CHECK(r.out.find(" redistributions run end to end on 4 ranks (") != std::string::npos);
  CHECK(r.out.find(", 0 wrong, 0 differ from the fake process group") != std::string::npos);
}

TEST_CASE("cli replay: the NCCL backend without a GPU or without the build exits 4") {
  write_plan();
  CliResult r = run_cli("replay --plan " + kPlan + " --backend nccl");
  CHECK(r.exit_code == 4);
  CHECK(r.out.empty());
  const bool no_device = r.err.find("no CUDA device") != std::string::npos;
  const bool not_built = r.err.find("NCCL backend not built") != std::string::npos;
  CHECK((no_device || not_built));
  CHECK(run_cli("replay --plan " + kPlan + " --backend nccl --compute").exit_code == 4);
}

TEST_CASE("cli replay and calibrate --replay: errors") {
  write_plan();
  CHECK(cli_failure("replay --plan /nonexistent/p.json", 2) ==
        "dtplan replay: error: --plan: cannot read the plan file /nonexistent/p.json: No such file "
        "or "
        "directory\n");
  CHECK(cli_failure("replay --plan " + kPlan + " --iters 0", 2).find("--iters") !=
        std::string::npos);
  CHECK(cli_failure("replay --plan " + kPlan + " --backend gloo", 2).find("--backend") !=
        std::string::npos);
  CHECK(cli_failure("replay --plan " + kPlan + " --compute", 2).find("--backend nccl") !=
        std::string::npos);
  CHECK(cli_failure("replay --plan README.md", 2).find("README.md: invalid JSON") !=
        std::string::npos);
  CHECK(cli_failure("calibrate --replay " + kPlan, 2).find(kPlan + ": field 'plan': missing") !=
        std::string::npos);
  CHECK(cli_failure("calibrate", 2).find("--nccl-tests LOG... and/or --replay RESULT...") !=
        std::string::npos);
  std::remove(kPlan.c_str());
}

}  // namespace
}  // namespace dtplan::testing
