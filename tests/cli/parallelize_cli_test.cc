// `dtplan plan --parallelize FILE|torchtitan [--compare-optimal]`: pins honoured in --out, the
// rules and the comparison in --json and the tables, and the exit codes of contradicting pins
// (the malformed-input corpus has the file faults). Tiny model, one layer, 2x2 meshes.

#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "support/cli.h"
#include "support/temp_dir.h"

namespace dtplan::testing {
namespace {

using Json = nlohmann::ordered_json;

const std::string kTiny = "plan --model configs/models/llama3-tiny.json --layers 1 ";

std::string write(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.at(name);
  std::ofstream(path) << text;
  return path;
}

// The placements of every op of a plan file, by name.
std::map<std::string, std::string> placements(const std::string& plan_path) {
  const Json j = Json::parse(file_text(plan_path));
  std::map<std::string, std::string> out;
  for (const Json& op : j["ops"]) out[op["name"]] = op["placements"];
  return out;
}

bool has(const std::string& text, const std::string& part) {
  INFO(text);
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("dtplan plan --parallelize FILE: pins in --out, rules and comparison in --json") {
  TempDir dir("parallelize");
  const std::string pins = write(dir, "p.json", R"j({"rules": [
    {"name": "wq", "match": "layers\\.\\d+\\.attention\\.wq\\.weight", "placements": "S(0),R"},
    {"name": "wo", "match": "layers\\.0\\.attention\\.wo\\.weight", "placements": {"tp": "S(1)"}}
  ]})j");
  const std::string out = dir.at("plan.json");
  const Json j = Json::parse(cli_output(kTiny + "--mesh configs/meshes/2x2.json --parallelize " +
                                        pins + " --compare-optimal --out " + out + " --json"));
  const auto p = placements(out);
  CHECK(p.at("layers.0.attention.wq.weight") == "S(0),R");
  CHECK(p.at("layers.0.attention.wo.weight") == "R,S(1)");
  // The gradients follow their parameters (the tie is on the gradient's alias).
  CHECK(p.at("layers.0.bwd.attention.wq.grad_weight_cast.alias") == "S(0),R");
  CHECK(j["parallelize"]["source"] == "--parallelize " + pins);
  CHECK(j["parallelize"]["rules"][0] ==
        Json{{"name", "wq"}, {"match", "layers\\.\\d+\\.attention\\.wq\\.weight"}, {"nodes", 1}});
  CHECK(j["parallelize"]["rules"][1]["nodes"] == 1);
  const Json& c = j["compare_optimal"];
  const double pinned = c["pinned"]["total_us"];
  const double optimal = c["optimal"]["total_us"];
  CHECK(pinned == doctest::Approx(j["cost"]["total_us"].get<double>()));
  CHECK(pinned >= optimal);
  CHECK(c["step_time_ratio"].get<double>() == doctest::Approx(pinned / optimal));
  CHECK(c["memory_ratio"].get<double>() ==
        doctest::Approx(c["pinned"]["peak_bytes_per_rank"].get<double>() /
                        c["optimal"]["peak_bytes_per_rank"].get<double>()));
  // The same run without pins is the optimum the comparison reports.
  const Json free = Json::parse(cli_output(kTiny + "--mesh configs/meshes/2x2.json --json"));
  CHECK(free["cost"]["total_us"].get<double>() == doctest::Approx(optimal));

  const std::string text = cli_output(kTiny + "--mesh configs/meshes/2x2.json --parallelize " +
                                      pins + " --compare-optimal");
  CHECK(has(text, "# pinned by --parallelize " + pins));
  CHECK(has(text, "# pinned plan against the free optimum"));
}

TEST_CASE("dtplan plan --parallelize torchtitan: FSDP2 and TP placements on dp_shard x tp") {
  TempDir dir("parallelize_tt");
  const std::string mesh =
      write(dir, "mesh.json", R"j({"shape": [2, 2], "names": ["dp_shard", "tp"]})j");
  const std::string out = dir.at("plan.json");
  const Json j = Json::parse(
      cli_output(kTiny + "--mesh " + mesh + " --parallelize torchtitan --out " + out + " --json"));
  const auto p = placements(out);
  // Colwise weights, embedding and output: TP rows, FSDP strided inside them (tp size 2).
  for (const std::string name :
       {"layers.0.attention.wq.weight", "layers.0.attention.wk.weight",
        "layers.0.attention.wv.weight", "layers.0.feed_forward.w1.weight",
        "layers.0.feed_forward.w3.weight", "tok_embeddings.weight", "output.weight"}) {
    CHECK_MESSAGE(p.at(name) == "_S(0,2),S(0)", name);
  }
  // Rowwise weights: TP columns, FSDP rows; norms replicated on tp.
  CHECK(p.at("layers.0.attention.wo.weight") == "S(0),S(1)");
  CHECK(p.at("layers.0.feed_forward.w2.weight") == "S(0),S(1)");
  CHECK(p.at("layers.0.attention_norm.weight") == "S(0),R");
  CHECK(p.at("norm.weight") == "S(0),R");
  // Activations: batch on dp_shard, sequence parallel residual, colwise out S(2), rowwise P.
  CHECK(p.at("layers.0.ffn_residual") == "S(0),S(1)");
  CHECK(p.at("layers.0.bwd.ffn_residual.grad") == "S(0),S(1)");
  CHECK(p.at("layers.0.bwd.attention.wq.grad_weight") == "P(sum),S(0)");
  CHECK(p.at("layers.0.bwd.attention.wo.grad_weight") == "P(sum),S(1)");
  CHECK(p.at("layers.0.bwd.attention.wq.grad_weight_cast") == "P(sum),S(0)");
  // FSDP2 reduces in fp32: each block weight's gradient is one f32 reduce-scatter on dp_shard
  // straight into the parameter's layout (no all_to_all after it).
  const Json plan = Json::parse(file_text(out));
  int fp32_scatters = 0;
  for (const Json& r : plan["redistributions"]) {
    const std::string consumer = plan["ops"][r["consumer"].get<std::size_t>()]["name"];
    if (consumer.find("layers.0.bwd.") != 0 || !consumer.ends_with(".grad_weight_cast.alias") ||
        consumer.find("norm") != std::string::npos) {
      continue;
    }
    CHECK_MESSAGE(r["tensor"]["dtype"] == "f32", consumer);
    REQUIRE_MESSAGE(r["steps"].size() == 1, consumer);
    CHECK(r["steps"][0]["collective"] == "reduce_scatter");
    CHECK(r["steps"][0]["mesh_dims"] == Json::array({0}));
    ++fp32_scatters;
  }
  CHECK(fp32_scatters == 7);  // wq, wk, wv, wo, w1, w2, w3
  CHECK(p.at("layers.0.bwd.attention.wo.grad_input") == "S(0),S(2)");
  CHECK(p.at("tok_embeddings.embedding") == "S(0),P(sum)");
  CHECK(p.at("layers.0.attention.wq.einsum") == "S(0),S(2)");
  CHECK(p.at("layers.0.attention.wo.einsum") == "S(0),P(sum)");
  CHECK(p.at("output.einsum") == "S(0),S(2)");
  CHECK(p.at("output.einsum.alias") == "S(0),S(2)");
  CHECK(p.at("logits.tangent") == "S(0),S(2)");
  CHECK(p.at("tokens") == "S(0),R");
  CHECK(j["parallelize"]["source"] == "--parallelize torchtitan");
  CHECK(j["solver"]["optimal"] == true);
}

TEST_CASE("dtplan plan --parallelize torchtitan: HSDP replicas, batch over both dp dims") {
  TempDir dir("parallelize_hsdp");
  const std::string mesh = write(
      dir, "mesh.json", R"j({"shape": [2, 2, 2], "names": ["dp_replicate", "dp_shard", "tp"]})j");
  const std::string out = dir.at("plan.json");
  cli_output(kTiny + "--mesh " + mesh + " --parallelize torchtitan --out " + out);
  const auto p = placements(out);
  CHECK(p.at("layers.0.attention.wq.weight") == "R,_S(0,2),S(0)");
  CHECK(p.at("layers.0.attention.wo.weight") == "R,S(0),S(1)");
  CHECK(p.at("tokens") == "S(0),S(0),R");
  CHECK(p.at("logits.tangent") == "S(0),S(0),S(2)");
}

TEST_CASE("dtplan plan --parallelize torchtitan: meshes it cannot apply to exit 2 or 3") {
  TempDir dir("parallelize_bad");
  auto mesh = [&](const std::string& name, const std::string& names, const std::string& shape) {
    return write(dir, name, R"j({"shape": [)j" + shape + R"j(], "names": [)j" + names + "]}");
  };
  // tiny has 4 heads and 2 kv heads: tp 4 does not divide the kv heads.
  std::string err = cli_failure(
      kTiny + "--mesh " + mesh("tp4.json", R"("dp", "tp")", "1, 4") + " --parallelize torchtitan",
      2);
  CHECK(has(err,
            "dtplan plan: error: --parallelize torchtitan: rule 'attention.colwise': tp "
            "size 4 does not divide the heads (n_heads 4, n_kv_heads 2)"));
  err = cli_failure(kTiny + "--mesh " + mesh("cp.json", R"("cp", "tp")", "2, 2") +
                        " --parallelize torchtitan --seq-len 12",
                    2);
  CHECK(has(err, "rule 'tokens': seq_len 12 is not divisible by 2 x cp 2 x tp 2 = 8"));
  err = cli_failure(
      kTiny + "--mesh " + mesh("x.json", R"("dp", "x")", "2, 2") + " --parallelize torchtitan", 2);
  CHECK(has(err, "mesh dim 'x' has no torchtitan role"));
  err = cli_failure(kTiny + "--mesh " + mesh("twice.json", R"("dp", "dp_shard")", "2, 2") +
                        " --parallelize torchtitan",
                    2);
  CHECK(has(err, "mesh dim 'dp_shard' repeats the role dp_shard"));
  err = cli_failure(kTiny + "--mesh configs/meshes/2x2.json --compare-optimal", 2);
  CHECK(has(err, "--compare-optimal: needs --parallelize"));
}

}  // namespace dtplan::testing

namespace dtplan::testing {
namespace {

// The plan's collectives on exactly `dims` (mesh dim indices): {count, bytes per rank}.
std::pair<std::int64_t, std::int64_t> collectives_on(const Json& plan, const std::string& kind,
                                                     const Json& dims) {
  for (const Json& c : plan["collectives"]) {
    if (c["collective"] == kind && c["mesh_dims"] == dims) {
      return {c["count"].get<std::int64_t>(), c["bytes"].get<std::int64_t>()};
    }
  }
  return {0, 0};
}

}  // namespace

TEST_CASE("dtplan plan --parallelize torchtitan: context parallel, hand-counted per block") {
  // tiny (1 layer): b 4, s 16, n_heads 4, n_kv_heads 2, head_dim 16. The collectives' bytes are
  // per rank on the wire: (n-1)/n of the gathered (or reduced) buffer.
  auto plan = [](const std::string& mesh, const std::string& checkpoint) {
    return Json::parse(cli_output(kTiny + "--mesh configs/meshes/" + mesh +
                                  " --parallelize torchtitan --checkpoint " + checkpoint +
                                  " --json"));
  };
  SUBCASE("dp_shard=2, cp=2: FSDP over the flattened dp_shard_cp, K/V gathered over cp") {
    const Json j = plan("dp_shard-cp-2x2.json", "selective_op");
    // Every FSDP all-gather and reduce-scatter is one collective over dp_shard_cp (4 ranks).
    bool flattened = false;
    for (const Json& c : j["collectives"]) {
      if (c["mesh_dims"].dump() == "[0]") FAIL("a collective over dp_shard alone: " << c.dump());
      if (c["mesh_dims"].dump() == "[0,1]") {
        CHECK(c["flattened_mesh"] == "dp_shard_cp");
        flattened = true;
      }
    }
    CHECK(flattened);
    // K and V per rank: b/dp 2 x K 2 x s/c 8 x hd 16 = 512 bf16 = 1024 B in, 2048 B out; the wire
    // carries 1024 B. Two gathers in the forward, two again when op-SAC recomputes the K/V path
    // for the backward (the SDPA output is saved, its inputs are not).
    CHECK(collectives_on(j, "all_gather", {1}) == std::pair<std::int64_t, std::int64_t>{4, 4096});
    // dK and dV reduce-scattered over cp (the stand-in for the ring): dV bf16 2x2x16x16 x 2 B =
    // 2048 B, dK inside RoPE's backward in f32 4096 B; half of each on the wire.
    CHECK(collectives_on(j, "reduce_scatter", {1}) ==
          std::pair<std::int64_t, std::int64_t>{2, 3072});
    // No checkpointing keeps the gathered K/V: the forward's two gathers only. Full AC
    // recomputes the forward ring: the gathers run twice.
    CHECK(collectives_on(plan("dp_shard-cp-2x2.json", "none"), "all_gather", {1}) ==
          std::pair<std::int64_t, std::int64_t>{2, 2048});
    CHECK(collectives_on(plan("dp_shard-cp-2x2.json", "full"), "all_gather", {1}) ==
          std::pair<std::int64_t, std::int64_t>{4, 4096});
  }
  SUBCASE("dp_shard=2, cp=2, tp=2: FSDP's all-gather of a TP-sharded weight over dp_shard_cp") {
    const Json j = plan("dp_shard-cp-tp-2x2x2.json", "selective_op");
    for (const Json& c : j["collectives"]) {
      // FSDP's all-gathers: never dp_shard alone, always the flattened group.
      if (c["collective"] == "all_gather") CHECK(c["mesh_dims"].dump() != "[0]");
    }
    // The rowwise weights' gradients (P(sum) on dp_shard and cp, S(1) on tp) to S(0),S(0),S(1):
    // no strided layout, so DTensor's greedy redistribution runs (all-reduce on cp, then
    // reduce-scatter on dp_shard) where FSDP2 reduce-scatters once over dp_shard_cp
    // (docs/parallelize.md lists it): wo's and w2's TP-local 64 x 32 and 64 x 64 f32, halved.
    CHECK(collectives_on(j, "reduce_scatter", {0}) ==
          std::pair<std::int64_t, std::int64_t>{2, 64 * 32 * 4 / 2 + 64 * 64 * 4 / 2});
    CHECK(collectives_on(j, "all_gather", {0, 1}).first > 0);
    // K/V per rank: b/dp 2 x K/t 1 x s/c 8 x hd 16 = 256 bf16, 512 B on the wire; 4 gathers.
    CHECK(collectives_on(j, "all_gather", {1}) == std::pair<std::int64_t, std::int64_t>{4, 2048});
  }
  SUBCASE("cp=2, tp=2: K/V gathered over cp on tp's heads") {
    TempDir dir("parallelize_cp_tp");
    const std::string out = dir.at("plan.json");
    cli_output(kTiny + "--mesh configs/meshes/cp-tp-2x2.json --parallelize torchtitan --out " +
               out);
    // The activation all-gathers over cp (the parameters' FSDP ones are 2-d): K after RoPE and V
    // after its view, both [b,s,K,hd] as repeat_kv's first op reads them (rule
    // ring_attention_kv), each b 4 x K/t 1 x s/c 8 x hd 16 = 512 bf16 per rank in, 1024 B on
    // the wire: K heads, not H.
    std::multiset<std::pair<std::string, std::int64_t>> gathers;
    const Json plan_file = Json::parse(file_text(out));
    for (const Json& r : plan_file["redistributions"]) {
      for (const Json& step : r["steps"]) {
        if (step["collective"] != "all_gather" || step["mesh_dims"].dump() != "[0]") continue;
        if (r["tensor"]["shape"].size() < 3) continue;
        gathers.insert({r["tensor"]["shape"].dump() + " " + r["tensor"]["dtype"].get<std::string>(),
                        step["bytes"].get<std::int64_t>()});
      }
    }
    const std::multiset<std::pair<std::string, std::int64_t>> expected = {
        {"[4,16,2,16] bf16", 1024}, {"[4,16,2,16] bf16", 1024}};
    CHECK(gathers == expected);
  }
}

TEST_CASE("dtplan plan --parallelize torchtitan: LLaMA3-70B on dp_shard=4, cp=2, simulated") {
  TempDir dir("parallelize_cp70b");
  const std::string out = dir.at("plan.json");
  const Json plan = Json::parse(cli_output(
      "plan --model configs/models/llama3-70b.json --mesh configs/meshes/dp_shard-cp-4x2.json "
      "--parallelize torchtitan --layers 2 --checkpoint full --compile --grad-accum 4 --out " +
      out + " --json"));
  CHECK(plan["solver"]["optimal"] == true);
  const Json sim = Json::parse(cli_output("simulate --plan " + out + " --json"));
  CHECK(sim["timeline"]["step_time_us"].get<double>() > 0);
  CHECK(sim["throughput"]["tokens_per_s_per_gpu"].get<double>() > 0);
  // 4 microbatches of 16 / 4 = 4 sequences of 8192 tokens.
  CHECK(sim["throughput"]["tokens_per_step"] == 16 * 8192);
}

}  // namespace dtplan::testing
