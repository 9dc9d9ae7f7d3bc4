// The collectives of `dtplan plan --parallelize torchtitan` per transformer block against the
// byte formulas of torchtitan's FSDP2, TP+SP and HSDP (docs/reference/torchtitan.md §2, §3),
// computed by hand for the tiny model (D 64, 4 heads, 2 kv heads of 16, FFN 128), one layer, no
// checkpointing.

#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>
#include <vector>

#include "support/cli.h"
#include "support/temp_dir.h"

namespace dtplan::testing {
namespace {

using Json = nlohmann::ordered_json;

// One collective step of a redistribution: kind, mesh dims, per-rank bytes, tensor dtype.
struct Step {
  std::string collective;
  std::vector<int> mesh_dims;
  std::int64_t bytes = 0;
  std::string dtype;
};

// The steps of every redistribution of a plan, by (producer, consumer) op name.
using Steps = std::map<std::pair<std::string, std::string>, std::vector<Step>>;

Steps plan_steps(const TempDir& dir, const std::string& mesh_json) {
  const std::string mesh = dir.at("mesh.json");
  std::ofstream(mesh) << mesh_json;
  const std::string out = dir.at("plan.json");
  cli_output(
      "plan --model configs/models/llama3-tiny.json --layers 1 --checkpoint none "
      "--parallelize torchtitan --mesh " +
      mesh + " --out " + out);
  const Json plan = Json::parse(file_text(out));
  Steps steps;
  for (const Json& r : plan["redistributions"]) {
    const std::string producer = plan["ops"][r["producer"].get<std::size_t>()]["name"];
    const std::string consumer = plan["ops"][r["consumer"].get<std::size_t>()]["name"];
    for (const Json& s : r["steps"]) {
      steps[{producer, consumer}].push_back(
          {s["collective"], s["mesh_dims"], s["bytes"], r["tensor"]["dtype"]});
    }
  }
  return steps;
}

// The one step from `producer` to `consumer`, checked against kind, dims and bytes.
void check_step(const Steps& steps, const std::string& producer, const std::string& consumer,
                const std::string& collective, std::vector<int> dims, std::int64_t bytes) {
  INFO(producer << " -> " << consumer);
  const auto it = steps.find({producer, consumer});
  REQUIRE(it != steps.end());
  REQUIRE(it->second.size() == 1);
  CHECK(it->second[0].collective == collective);
  CHECK(it->second[0].mesh_dims == dims);
  CHECK(it->second[0].bytes == bytes);
}

// Sums the per-rank bytes of the steps on `dims` whose consumer's name starts with `prefix`
// and ends with `suffix`.
std::int64_t bytes_into(const Steps& steps, const std::string& prefix, const std::string& suffix,
                        const std::string& collective, std::vector<int> dims) {
  std::int64_t total = 0;
  for (const auto& [ends, list] : steps) {
    const std::string& consumer = ends.second;
    if (!consumer.starts_with(prefix) || !consumer.ends_with(suffix)) continue;
    for (const Step& s : list) {
      if (s.collective == collective && s.mesh_dims == dims) total += s.bytes;
    }
  }
  return total;
}

const std::string kL = "layers.0.";

}  // namespace

TEST_CASE("torchtitan collectives: TP+SP per block on tp, FSDP2 per block on dp_shard") {
  TempDir dir("tt_collectives");
  const Steps s = plan_steps(dir, R"j({"shape": [2, 2], "names": ["dp_shard", "tp"]})j");
  // TP+SP (docs/reference/torchtitan.md §2): b = 4 / 2 dp ranks = 2 sequences of 16, T = 32 tokens
  // per rank, T_sp = T / t = 16; each activation collective moves T_sp x D bf16 per rank = 16 x 64
  // x 2.
  const std::int64_t act = 16 * 64 * 2;
  // Forward: all-gather each norm's output, reduce-scatter each rowwise output.
  check_step(s, kL + "attention_norm.to_bf16", kL + "attention_norm.to_bf16.alias", "all_gather",
             {1}, act);
  check_step(s, kL + "attention.wo.einsum", kL + "attention_residual", "reduce_scatter", {1}, act);
  check_step(s, kL + "ffn_norm.to_bf16", kL + "ffn_norm.to_bf16.alias", "all_gather", {1}, act);
  check_step(s, kL + "feed_forward.w2.einsum", kL + "ffn_residual", "reduce_scatter", {1}, act);
  // Backward: reduce-scatter the attention and FFN input gradients, all-gather the gradients
  // entering wo and w2 once each, at the alias both the input and the weight gradient read (for
  // the last block, w2's is the final norm's input gradient).
  check_step(s, kL + "bwd.attention_norm.grad_fan_in_1", kL + "bwd.attention_norm.grad_to_f32",
             "reduce_scatter", {1}, act);
  check_step(s, kL + "bwd.ffn_norm.grad_fan_in", kL + "bwd.ffn_norm.grad_to_f32", "reduce_scatter",
             {1}, act);
  check_step(s, kL + "bwd.ffn_residual.grad", kL + "bwd.ffn_residual.grad.alias", "all_gather", {1},
             act);
  check_step(s, "bwd.norm.grad_to_bf16", "bwd.norm.grad_to_bf16.alias", "all_gather", {1}, act);
  // Outside the blocks: the embedding's forward reduce-scatter and the output's all-gather.
  check_step(s, "tok_embeddings.embedding", "tok_embeddings.embedding.alias", "reduce_scatter", {1},
             act);
  check_step(s, "norm.to_bf16", "norm.to_bf16.alias", "all_gather", {1}, act);

  // FSDP2 (docs/reference/torchtitan.md §3): the block's TP-local numel is (2D^2 + 2 D K hd + 3 D
  // F) / t + 2D = (8192 + 4096 + 24576) / 2 + 128 = 18,560; the forward all-gathers it in bf16,
  // each of the N = 2 ranks contributing half: 18,560 B per rank.
  CHECK(bytes_into(s, kL, "", "all_gather", {0}) == 18560);
  // The reduce-scatter, all in fp32 (reduce_dtype): the matrices' 18,432 and the two norm
  // weights' 128 elements, halved. The norm weights' gradients are first all-reduced on tp, in
  // bf16 (TP's Replicate weights), before FSDP's cast.
  CHECK(bytes_into(s, kL + "bwd.", "grad_weight_cast.alias", "reduce_scatter", {0}) ==
        18560 / 2 * 4);
  for (const std::string norm : {"attention_norm", "ffn_norm"}) {
    const auto& steps = s.at(
        {kL + "bwd." + norm + ".grad_weight_to_bf16", kL + "bwd." + norm + ".grad_weight_cast"});
    REQUIRE(steps.size() == 1);
    CHECK(steps[0].collective == "all_reduce");
    CHECK(steps[0].mesh_dims == std::vector<int>{1});
    CHECK(steps[0].dtype == "bf16");
  }
  for (const std::string w : {"attention.wq", "attention.wo", "feed_forward.w2"}) {
    const auto& steps =
        s.at({kL + "bwd." + w + ".grad_weight_cast", kL + "bwd." + w + ".grad_weight_cast.alias"});
    CHECK(steps.front().dtype == "f32");
  }
}

TEST_CASE("torchtitan collectives: HSDP all-reduces each reduce-scattered gradient in fp32") {
  TempDir dir("tt_hsdp");
  const Steps s =
      plan_steps(dir, R"j({"shape": [2, 2, 2], "names": ["dp_replicate", "dp_shard", "tp"]})j");
  // Each block matrix: reduce-scatter over dp_shard, then all-reduce of numel / (t N) fp32
  // values over dp_replicate (docs/reference/torchtitan.md §3): wq 64 x 64 / 4 x 4 B, w1 128 x 64 /
  // 4 x 4 B.
  for (const auto& [w, numel] : std::vector<std::pair<std::string, std::int64_t>>{
           {"attention.wq", 64 * 64}, {"attention.wk", 32 * 64}, {"feed_forward.w1", 128 * 64}}) {
    INFO(w);
    const auto& steps =
        s.at({kL + "bwd." + w + ".grad_weight_cast", kL + "bwd." + w + ".grad_weight_cast.alias"});
    REQUIRE(steps.size() == 2);
    CHECK(steps[0].collective == "reduce_scatter");
    CHECK(steps[0].mesh_dims == std::vector<int>{1});
    CHECK(steps[1].collective == "all_reduce");
    CHECK(steps[1].mesh_dims == std::vector<int>{0});
    CHECK(steps[1].bytes == numel / 4 * 4);
    CHECK(steps[1].dtype == "f32");
  }
  // TP collectives are the same formula with b = 1 (4 sequences over 4 data-parallel ranks).
  check_step(s, kL + "attention.wo.einsum", kL + "attention_residual", "reduce_scatter", {2},
             8 * 64 * 2);
}

}  // namespace dtplan::testing
