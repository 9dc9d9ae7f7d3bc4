// LLaMA3-70B under `--parallelize torchtitan --checkpoint full --compile --grad-accum 4` on
// meshes named from {dp_replicate, dp_shard, cp, tp} of one to three dims (one layer, batch 16):
// the plan does not depend on --threads, and `dtplan simulate` of it gives a step time,
// tokens/s per GPU, MFU and the plan's peak memory, the same for the plan of either thread count.

#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/cli.h"
#include "support/temp_dir.h"

namespace dtplan::testing {
namespace {

using Json = nlohmann::ordered_json;

const std::string kPlan =
    "plan --model configs/models/llama3-70b.json --layers 1 --batch 16 --parallelize torchtitan "
    "--checkpoint full --compile --grad-accum 4 ";

// The plan written with `threads`, with the solver's wall time zeroed (it differs run to run).
Json plan_file(const TempDir& dir, const std::string& mesh, int threads) {
  const std::string out = dir.at("plan" + std::to_string(threads) + ".json");
  cli_output(kPlan + "--mesh " + mesh + " --threads " + std::to_string(threads) + " --out " + out);
  Json plan = Json::parse(file_text(out));
  plan["solver"]["time_s"] = 0;
  return plan;
}

Json simulate(const TempDir& dir, const Json& plan, const std::string& name) {
  const std::string path = dir.at(name);
  std::ofstream(path) << plan.dump();
  return Json::parse(cli_output("simulate --plan " + path + " --json"));
}

void check_step(const Json& sim, const Json& plan) {
  CHECK(sim["timeline"]["step_time_us"].get<double>() > 0);
  const double mfu = sim["throughput"]["mfu"].get<double>();
  CHECK(mfu > 0);
  CHECK(mfu < 1);
  CHECK(sim["throughput"]["tokens_per_s_per_gpu"].get<double>() > 0);
  // 16 sequences of 8192 tokens per step, all four microbatches counted.
  CHECK(sim["throughput"]["tokens_per_step"] == 16 * 8192);
  CHECK(sim["memory"] == plan["memory"]);
  CHECK(sim["memory"]["peak_bytes_per_rank"].get<std::int64_t>() > 0);
}

}  // namespace

TEST_CASE("70B torchtitan plans: independent of --threads, simulated with throughput and memory") {
  for (const std::string mesh_json :
       {R"j({"shape": [4], "names": ["dp_shard"]})j",
        R"j({"shape": [2, 2], "names": ["dp_replicate", "dp_shard"]})j",
        R"j({"shape": [2, 2], "names": ["dp_shard", "tp"]})j",
        R"j({"shape": [2, 2], "names": ["dp_shard", "cp"], "flatten": [["dp_shard", "cp"]]})j"}) {
    INFO(mesh_json);
    TempDir dir("tt70b");
    const std::string mesh = dir.at("mesh.json");
    std::ofstream(mesh) << mesh_json;
    const Json one = plan_file(dir, mesh, 1);
    const Json two = plan_file(dir, mesh, 2);
    CHECK(one == two);
    CHECK(one["training"]["checkpoint"] == "full");
    CHECK(one["training"]["compile"] == true);
    CHECK(one["training"]["grad_accum"] == 4);
    const Json sim_one = simulate(dir, one, "one.json");
    check_step(sim_one, one);
    CHECK(sim_one == simulate(dir, two, "two.json"));
  }
  // Three dims: FSDP over dp_shard x cp, ring attention on cp, TP (one run; the threads check
  // above covers the solver).
  TempDir dir("tt70b3");
  const std::string mesh = dir.at("mesh.json");
  std::ofstream(mesh) << R"j({"shape": [2, 2, 2], "names": ["dp_shard", "cp", "tp"],
                              "flatten": [["dp_shard", "cp"]]})j";
  const Json plan = plan_file(dir, mesh, 2);
  check_step(simulate(dir, plan, "three.json"), plan);
}

}  // namespace dtplan::testing
