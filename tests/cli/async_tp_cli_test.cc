// `dtplan plan --parallelize torchtitan --compile --async-tp` and `dtplan simulate` of its plan
// (docs/model.md section 11): the blocks' tp all-gathers and reduce-scatters become fused matmuls
// priced m + (t - 1) x max(m, c), the embedding's and output's collectives stay NCCL, the plan
// reads back and re-prices identically, misuse is exit 2. Tiny model on dp_shard=2,tp=2 with
// 4 x 32768 tokens, so that the fused matmuls' peer copies are not negligible.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "support/cli.h"

namespace dtplan::testing {
namespace {

using Json = nlohmann::ordered_json;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("dtplan_async_tp_cli_" + name)).string();
}

const std::string kPlan =
    "plan --model configs/models/llama3-tiny.json --mesh dp_shard=2,tp=2 --threads 1 "
    "--parallelize torchtitan --compile --seq-len 32768 --batch 4 ";

// The plan file of `flags` (written to `path`).
Json plan_file(const std::string& flags, const std::string& path) {
  cli_output(kPlan + flags + " --out " + path + " --json");
  std::ifstream in(path);
  return Json::parse(in);
}

double step_us(const std::string& path) {
  const Json sim = Json::parse(cli_output("simulate --plan " + path + " --json"));
  return sim["timeline"]["step_time_us"].get<double>();
}

// The tp (mesh dim 1) collectives of a plan's summary: kind -> count.
std::map<std::string, std::int64_t> tp_counts(const Json& plan) {
  std::map<std::string, std::int64_t> out;
  for (const Json& c : plan["collectives"]) {
    if (c["mesh_dims"] == Json::array({1})) out[c["collective"]] += c["count"].get<std::int64_t>();
  }
  return out;
}

std::string op_name(const Json& plan, const Json& index) {
  return plan["ops"][index.get<std::size_t>()]["name"];
}

TEST_CASE("async TP: the blocks' tp collectives become fused matmuls priced by the formula") {
  const std::string sync_path = temp_path("sync.json");
  const std::string async_path = temp_path("async.json");
  const Json sync = plan_file("", sync_path);
  const Json async = plan_file("--async-tp", async_path);
  CHECK(sync["training"]["async_tp"] == false);
  CHECK(async["training"]["async_tp"] == true);
  CHECK_FALSE(sync.contains("fused_matmuls"));
  // Per block: forward wq/wk/wv and w1/w3 all-gathers, wo and w2 reduce-scatters, backward
  // all-gathers into wo's and w2's input gradients; 2 blocks.
  const Json& fused = async["fused_matmuls"];
  REQUIRE(fused.size() == 12);
  const Json& qkv = fused[0];
  CHECK(qkv["kind"] == "fused_all_gather_matmul");
  REQUIRE(qkv["matmuls"].size() == 3);
  CHECK(op_name(async, qkv["matmuls"][0]) == "layers.0.attention.wq.einsum");
  CHECK(op_name(async, qkv["matmuls"][2]) == "layers.0.attention.wv.einsum");
  // One shard of the bf16 block input [4, 32768, 64] over dp_shard 2 and tp 2: 4194304 bytes,
  // copied at 18 x 20.6 GB/s (h100-dgx): c = 4194304 / 370800 = 11.3115 us. The three
  // projections sit at the 7 us launch floor, so do their halves: m = 3 x 7 = 21 us and
  // fused = 21 + (2 - 1) x max(21, 11.3115) = 42 us (chunks hide the copy).
  CHECK(qkv["chunks"] == 2);
  CHECK(qkv["chunk_bytes"] == 4194304);
  CHECK(qkv["copy_us"].get<double>() == doctest::Approx(4194304.0 / 370800.0));
  CHECK(qkv["fused_us"].get<double>() == doctest::Approx(42.0));
  const Json& wo = fused[1];
  CHECK(wo["kind"] == "fused_matmul_reduce_scatter");
  REQUIRE(wo["matmuls"].size() == 1);
  CHECK(op_name(async, wo["matmuls"][0]) == "layers.0.attention.wo.einsum");
  // wo alone: m = 7 us, the copy exposed: 7 + max(7, 11.3115) = 18.3115 us.
  CHECK(wo["fused_us"].get<double>() == doctest::Approx(7.0 + 4194304.0 / 370800.0));
  // The absorbed collectives leave the NCCL summary; the embedding's reduce-scatter, the
  // output's gather and the sums of input gradients keep theirs. Before: per block the two
  // module inputs' gathers (run again by the recompute) and one gather per rowwise linear's
  // backward, shared by its input and weight gradient; the output's: 2 x (2 x 2 + 2) + 1.
  const auto before = tp_counts(sync);
  const auto after = tp_counts(async);
  CHECK(before.at("all_gather") == 13);
  CHECK(after.at("all_gather") == 1);
  CHECK(before.at("reduce_scatter") == 13);
  CHECK(after.at("reduce_scatter") == 7);
  CHECK(async["cost"]["communication_us"].get<double>() <
        sync["cost"]["communication_us"].get<double>());
  // The step gets shorter: the fused matmuls run longer than the matmuls alone, by less than
  // the collectives they absorb.
  CHECK(async["cost"]["compute_us"].get<double>() > sync["cost"]["compute_us"].get<double>());
  CHECK(step_us(async_path) < step_us(sync_path));
  std::filesystem::remove(sync_path);
  std::filesystem::remove(async_path);
}

TEST_CASE("async TP: the plan reads back, re-prices identically, and a changed price is refused") {
  const std::string path = temp_path("roundtrip.json");
  const Json file = plan_file("--async-tp", path);
  const double step = step_us(path);
  CHECK(step > 0);
  CHECK(step_us(path) == step);
  Json bad = file;
  bad["fused_matmuls"][1]["copy_us"] = 1.0;
  std::ofstream(path) << bad.dump();
  CHECK(cli_failure("simulate --plan " + path, 2).find("fused_matmuls[1]") != std::string::npos);
  bad = file;
  bad["training"]["async_tp"] = false;
  std::ofstream(path) << bad.dump();
  CHECK(cli_failure("simulate --plan " + path, 2)
            .find("fused_matmuls': present without training.async_tp") != std::string::npos);
  std::filesystem::remove(path);
}

TEST_CASE("async TP: without --compile, torchtitan's plan or a tp dim it is exit 2") {
  // (flags, the reason after "--async-tp: ")
  const std::vector<std::pair<std::string, std::string>> misuse = {
      {"--mesh dp_shard=2,tp=2 --parallelize torchtitan",
       "needs --compile (inductor's micro-pipeline TP pass does the fusion)"},
      {"--mesh dp_shard=2,tp=2 --compile",
       "needs --parallelize torchtitan (async TP fuses torchtitan's TP collectives)"},
      {"--mesh dp_shard=4 --parallelize torchtitan --compile",
       "needs a mesh dim named tp of size > 1 (there are no TP collectives to fuse)"},
  };
  for (const auto& [flags, reason] : misuse) {
    CHECK(cli_failure(
              "plan --model configs/models/llama3-tiny.json --threads 1 " + flags + " --async-tp",
              2) == "dtplan plan: error: --async-tp: " + reason + "\n");
  }
}

}  // namespace
}  // namespace dtplan::testing
