// `dtplan plan`, `sweep` and `simulate` with float8 linears (--float8, the model file's
// "float8"; docs/model.md section 10): the fp8 GEMM rate, the fp8 FSDP all-gathers of tensorwise,
// the plan file round trip. Tiny model on dp_shard=4 under the torchtitan pins.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "support/cli.h"

namespace dtplan::testing {
namespace {

using Json = nlohmann::ordered_json;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("dtplan_float8_cli_" + name)).string();
}

// A 1-D mesh of 4 ranks named dp_shard (FSDP under --parallelize torchtitan).
std::string mesh4() {
  const std::string path = temp_path("mesh4.json");
  std::ofstream(path) << R"({"shape": [4], "names": ["dp_shard"], "hardware": "h100-dgx"})";
  return path;
}

const std::string kPlan = "plan --model configs/models/llama3-tiny.json --mesh " + mesh4() +
                          " --threads 1 --parallelize torchtitan ";

// The whole plan file (ops and redistributions) of `flags`.
Json plan_file(const std::string& flags) {
  const std::string out = temp_path("plan.json");
  cli_output(kPlan + flags + " --out " + out + " --json");
  std::ifstream in(out);
  Json j = Json::parse(in);
  std::filesystem::remove(out);
  return j;
}

// Per-rank all-gather bytes of layer 0's parameters (gathered from the parameter, its cast or a
// view of it), each weight once, split into the converted linears' and the norms'. A weight
// gathered once and read twice and one gathered again for each reader (FSDP's re-gather in the
// backward) cost the same, so the plan may take either: the first redistribution of each
// weight is the one counted.
struct GatherBytes {
  std::int64_t linears = 0;
  std::int64_t norms = 0;
};

GatherBytes layer0_weight_gathers(const Json& plan) {
  GatherBytes g;
  std::set<std::string> counted;  // the weights, by name up to ".weight"
  for (const Json& rd : plan["redistributions"]) {
    const Json& producer = plan["ops"][rd["producer"].get<std::size_t>()];
    const std::string name = producer["name"];
    if (name.rfind("layers.0.", 0) != 0) continue;
    const std::size_t weight = name.find(".weight");
    if (weight == std::string::npos || name.find("bwd") != std::string::npos) continue;
    std::int64_t bytes = 0;
    for (const Json& step : rd["steps"]) {
      if (step["collective"] == "all_gather") bytes += step["bytes"].get<std::int64_t>();
    }
    if (bytes == 0 || !counted.insert(name.substr(0, weight)).second) continue;
    (name.find("norm") != std::string::npos ? g.norms : g.linears) += bytes;
  }
  return g;
}

TEST_CASE("float8: tensorwise halves the converted weights' FSDP all-gathers, rowwise does not") {
  const Json none = plan_file("--float8 none");
  const Json tensorwise = plan_file("--float8 tensorwise");
  const Json rowwise = plan_file("--float8 rowwise");
  const GatherBytes b = layer0_weight_gathers(none);
  const GatherBytes t = layer0_weight_gathers(tensorwise);
  const GatherBytes r = layer0_weight_gathers(rowwise);
  // Tiny block (docs/reference/torchtitan.md §3, t = 1): 2D^2 + 2D.K.hd + 3DF = 2 x 4096 + 2 x 2048
  // + 3 x 8192 = 36864 converted elements and 2D = 128 norm elements, each rank sending its
  // quarter: bf16 36864 / 4 x 2 = 18432 bytes, fp8 9216; the norms 128 / 4 x 2 = 64 bytes in every
  // recipe.
  CHECK(b.linears == 18432);
  CHECK(t.linears == 9216);
  CHECK(b.norms == 64);
  CHECK(r.linears == b.linears);
  CHECK(t.norms == b.norms);
  CHECK(r.norms == b.norms);
  // The gradient reduce-scatters are unchanged.
  auto bytes_of = [](const Json& plan, const char* kind) {
    std::int64_t n = 0;
    for (const Json& c : plan["collectives"]) {
      if (c["collective"] == kind) n += c["bytes"].get<std::int64_t>();
    }
    return n;
  };
  CHECK(bytes_of(tensorwise, "reduce_scatter") == bytes_of(none, "reduce_scatter"));
  CHECK(bytes_of(tensorwise, "all_gather") < bytes_of(none, "all_gather"));
  CHECK(bytes_of(rowwise, "all_gather") == bytes_of(none, "all_gather"));
  CHECK(tensorwise["training"]["float8"] == "tensorwise");
}

TEST_CASE("float8: the flag overrides the file, the file's field is read, bad values exit 2") {
  const std::string path = temp_path("model.json");
  std::ifstream in("configs/models/llama3-tiny.json");
  Json model = Json::parse(in);
  model["float8"] = "rowwise";
  std::ofstream(path) << model.dump();
  const std::string plan = "plan --model " + path + " --mesh " + mesh4() + " --threads 1 --json";
  CHECK(Json::parse(cli_output(plan))["training"]["float8"] == "rowwise");
  CHECK(Json::parse(cli_output(plan + " --float8 none"))["training"]["float8"] == "none");
  CHECK(cli_output(kPlan + "--float8 tensorwise").find(", float8 tensorwise,") !=
        std::string::npos);
  model["float8"] = "fp8";
  std::ofstream(path) << model.dump();
  CHECK(cli_failure("plan --model " + path + " --mesh " + mesh4(), 2) ==
        "dtplan plan: error: " + path +
            ": field 'float8': unknown float8 recipe 'fp8' (use none, tensorwise or rowwise)\n");
  std::filesystem::remove(path);
  CHECK(cli_failure(kPlan + "--float8 e4m3", 2) ==
        "dtplan plan: error: --float8: unknown float8 recipe 'e4m3' (use none, tensorwise or "
        "rowwise)\n");
  CHECK(cli_failure("sweep --model configs/models/llama3-tiny.json --world 4 --float8 x", 2) ==
        "dtplan sweep: error: --float8: unknown float8 recipe 'x' (use none, tensorwise or "
        "rowwise)\n");
  // A graph document takes no --float8; a profile without an fp8 peak refuses it.
  CHECK(cli_failure("plan --model tests/data/fx_export_sample.json --mesh " + mesh4() +
                        " --float8 tensorwise",
                    3)
            .find("--float8 apply to builder models") != std::string::npos);
  CHECK(cli_failure(kPlan + "--float8 tensorwise --hardware a100-dgx", 3)
            .find("no peak FLOP/s for dtype f8e4m3") != std::string::npos);
}

TEST_CASE("float8: the plan prices the float8 linears, simulate reads the recipe back") {
  auto compute = [](const Json& j) { return j["cost"]["compute_us"].get<double>(); };
  const std::string out = temp_path("roundtrip.json");
  const Json eager = Json::parse(cli_output(kPlan + "--checkpoint none --json"));
  const Json f8 = Json::parse(
      cli_output(kPlan + "--checkpoint none --float8 tensorwise --out " + out + " --json"));
  // The tiny model's GEMMs and casts sit at the launch floor: the casts add time here (the 8B
  // figures of docs/model.md section 10 show the saving at scale).
  CHECK(compute(f8) > compute(eager));
  std::ifstream in(out);
  const Json file = Json::parse(in);
  CHECK(file["training"]["float8"] == "tensorwise");
  const Json sim = Json::parse(cli_output("simulate --plan " + out + " --json"));
  CHECK(sim["timeline"]["step_time_us"].get<double>() > 0);
  // A recipe simulate does not know is refused, naming the field.
  Json bad = file;
  bad["training"]["float8"] = "fp4";
  std::ofstream(out) << bad.dump();
  CHECK(cli_failure("simulate --plan " + out, 2).find("training.float8") != std::string::npos);
  std::filesystem::remove(out);
}

}  // namespace
}  // namespace dtplan::testing
