// `dtplan plan` and `dtplan sweep` with the training flags (--batch, --seq-len, --checkpoint,
// --grad-accum, --no-grad-sync, --compile, --float8) overriding the model file, the plan JSON
// recording them, and `dtplan simulate` reproducing the step from the plan file. Tiny model on
// dp_shard=4.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/cli.h"

namespace dtplan::testing {
namespace {

using Json = nlohmann::ordered_json;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("dtplan_training_cli_" + name)).string();
}

// A 1-D mesh of 4 ranks named dp_shard (FSDP under --parallelize torchtitan).
std::string mesh4() {
  const std::string path = temp_path("mesh4.json");
  std::ofstream(path) << R"({"shape": [4], "names": ["dp_shard"], "hardware": "h100-dgx"})";
  return path;
}

const std::string kPlan =
    "plan --model configs/models/llama3-tiny.json --mesh " + mesh4() + " --threads 1 ";

Json plan_json(const std::string& flags) {
  return Json::parse(cli_output(kPlan + flags + " --json"));
}

std::int64_t count_of(const Json& plan, const std::string& collective) {
  std::int64_t n = 0;
  for (const Json& c : plan["collectives"]) {
    if (c["collective"] == collective) n += c["count"].get<std::int64_t>();
  }
  return n;
}

TEST_CASE("training flags: the plan records the options it prices") {
  const Json j = plan_json("--batch 16 --checkpoint full --grad-accum 4 --no-grad-sync");
  CHECK(j["training"] == Json::parse(R"({"checkpoint": "full", "grad_accum": 4,
                                          "grad_sync": "last_microbatch", "compile": false,
                                          "float8": "none", "async_tp": false})"));
  // The model file's own: selective_op, one microbatch.
  const Json d = plan_json("");
  CHECK(d["training"] == Json::parse(R"({"checkpoint": "selective_op", "grad_accum": 1,
                                          "grad_sync": "every_microbatch", "compile": false,
                                          "float8": "none", "async_tp": false})"));
}

TEST_CASE("training flags: recomputation costs compute and saves memory") {
  const Json none = plan_json("--checkpoint none");
  const Json sac = plan_json("--checkpoint selective_op");
  const Json full = plan_json("--checkpoint full");
  auto compute = [](const Json& j) { return j["cost"]["compute_us"].get<double>(); };
  auto activations = [](const Json& j) {
    return j["memory"]["activation_bytes"].get<std::int64_t>();
  };
  CHECK(compute(none) < compute(sac));
  CHECK(compute(sac) < compute(full));
  CHECK(activations(none) > activations(sac));
  CHECK(activations(sac) > activations(full));
}

TEST_CASE("training flags: --compile fuses the blocks' memory-bound ops, the rest unchanged") {
  const Json eager = plan_json("--parallelize torchtitan");
  const Json compiled = plan_json("--parallelize torchtitan --compile");
  CHECK(compiled["training"]["compile"] == true);
  CHECK(plan_json("--parallelize torchtitan --compile --no-compile")["training"]["compile"] ==
        false);
  auto cost = [](const Json& j, const char* part) { return j["cost"][part].get<double>(); };
  CHECK(cost(compiled, "compute_us") < cost(eager, "compute_us"));
  // Compile changes no collective (FSDP's hooks and TP's collectives are outside the fusion).
  // Times are sums over the plan's redistributions, whose order the two plans may list
  // differently, so they agree to rounding; everything else exactly.
  REQUIRE(compiled["collectives"].size() == eager["collectives"].size());
  for (std::size_t c = 0; c < eager["collectives"].size(); ++c) {
    Json a = compiled["collectives"][c];
    Json b = eager["collectives"][c];
    CHECK(a["time_us"].get<double>() == doctest::Approx(b["time_us"].get<double>()));
    a.erase("time_us");
    b.erase("time_us");
    CHECK(a == b);
  }
  CHECK(cost(compiled, "communication_us") == doctest::Approx(cost(eager, "communication_us")));
  CHECK(compiled["memory"] == eager["memory"]);
  // The model file's "compile": true is the same as the flag; a non-boolean is refused.
  const std::string path = temp_path("compiled_model.json");
  std::ifstream in("configs/models/llama3-tiny.json");
  Json model = Json::parse(in);
  model["compile"] = true;
  std::ofstream(path) << model.dump();
  const std::string from_file = cli_output("plan --model " + path + " --mesh " + mesh4() +
                                           " --threads 1 --parallelize torchtitan --json");
  CHECK(Json::parse(from_file)["cost"] == compiled["cost"]);
  model["compile"] = "yes";
  std::ofstream(path) << model.dump();
  CHECK(cli_failure("plan --model " + path + " --mesh " + mesh4(), 2) ==
        "dtplan plan: error: " + path + ": field 'compile': expected true or false, got string\n");
  std::filesystem::remove(path);
}

TEST_CASE("training flags: grad_accum 4 runs the collectives per microbatch, or reduces once") {
  const Json one = plan_json("--batch 16 --checkpoint none --parallelize torchtitan");
  const Json every =
      plan_json("--batch 16 --checkpoint none --grad-accum 4 --parallelize torchtitan");
  const Json once = plan_json(
      "--batch 16 --checkpoint none --grad-accum 4 --no-grad-sync --parallelize torchtitan");
  // FSDP on dp_shard=4: one reduce-scatter per parameter (2 x 9 + 3 = 21) per microbatch.
  CHECK(count_of(one, "reduce_scatter") == 21);
  CHECK(count_of(every, "reduce_scatter") == 4 * 21);
  CHECK(count_of(once, "reduce_scatter") == 21);
  CHECK(count_of(every, "all_gather") == 4 * count_of(one, "all_gather"));
  CHECK(count_of(once, "all_gather") == count_of(every, "all_gather"));
  // Unsharded fp32 gradients held between microbatches without sync.
  CHECK(once["memory"]["gradient_bytes"].get<std::int64_t>() >
        every["memory"]["gradient_bytes"].get<std::int64_t>());
}

TEST_CASE("training flags: simulate reproduces the step of the plan file, for any thread count") {
  std::vector<double> steps;
  for (const char* threads : {"1", "2"}) {
    const std::string out = temp_path(std::string("plan") + threads + ".json");
    cli_output("plan --model configs/models/llama3-tiny.json --mesh " + mesh4() +
               " --batch 16 --checkpoint full --grad-accum 4 --threads " + std::string(threads) +
               " --out " + out + " --json");
    const Json sim = Json::parse(cli_output("simulate --plan " + out + " --json"));
    steps.push_back(sim["timeline"]["step_time_us"].get<double>());
    std::filesystem::remove(out);
  }
  CHECK(steps[0] > 0);
  CHECK(steps[0] == steps[1]);
}

TEST_CASE("training flags: bad values name the flag") {
  CHECK(cli_failure(kPlan + "--grad-accum 3", 2) ==
        "dtplan plan: error: --grad-accum: 3 does not divide the batch 4\n");
  CHECK(cli_failure(kPlan + "--batch 6 --grad-accum 4", 2) ==
        "dtplan plan: error: --grad-accum: 4 does not divide the batch 6\n");
  CHECK(cli_failure(kPlan + "--checkpoint selective", 2) ==
        "dtplan plan: error: --checkpoint: unknown checkpoint policy 'selective' (use none, "
        "selective_op or full)\n");
  CHECK(cli_failure(kPlan + "--batch 0", 2) == "dtplan plan: error: --batch: 0 is not >= 1\n");
  CHECK(cli_failure(kPlan + "--seq-len 0", 2) == "dtplan plan: error: --seq-len: 0 is not >= 1\n");
  CHECK(cli_failure(kPlan + "--grad-accum 0", 2) ==
        "dtplan plan: error: --grad-accum: 0 is not >= 1\n");
  CHECK(cli_failure("sweep --model configs/models/llama3-tiny.json --world 4 --grad-accum 3", 2) ==
        "dtplan sweep: error: --grad-accum: 3 does not divide the batch 4\n");
  // torchtitan's data loader needs whole sequences per data-parallel rank.
  CHECK(cli_failure(kPlan + "--grad-accum 2 --parallelize torchtitan", 2) ==
        "dtplan plan: error: --parallelize torchtitan: rule 'tokens': the microbatch of 2 "
        "sequences (batch 4 / grad_accum 2) does not divide over the 4 data-parallel ranks\n");
  // A graph document takes none of them.
  CHECK(
      cli_failure(
          "plan --model tests/data/fx_export_sample.json --mesh " + mesh4() + " --grad-accum 2", 3)
          .find("apply to builder models") != std::string::npos);
}

TEST_CASE("training flags: sweep plans every mesh with the options") {
  const Json j = Json::parse(
      cli_output("sweep --model configs/models/llama3-tiny.json --world 4 --dims 1 --batch 16 "
                 "--checkpoint full --grad-accum 4 --threads 1 --json"));
  REQUIRE(!j["results"].empty());
  CHECK(j["results"][0]["step_time_us"].get<double>() > 0);
}

}  // namespace
}  // namespace dtplan::testing
