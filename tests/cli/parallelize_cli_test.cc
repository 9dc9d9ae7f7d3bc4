// `dtplan plan --parallelize FILE|torchtitan [--compare-optimal]`: pins honoured in --out, the
// rules and the comparison in --json and the tables, and the exit codes of contradicting pins
// (the malformed-input corpus has the file faults). Tiny model, one layer, 2x2 meshes.

#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

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
  const Json j = Json::parse(cli_output(kTiny + "--mesh " + mesh +
                                        " --parallelize torchtitan --compare-optimal --out " + out +
                                        " --json"));
  const auto p = placements(out);
  CHECK(p.at("layers.0.attention.wq.weight") == "R,_S(0,2),S(0)");
  CHECK(p.at("layers.0.attention.wo.weight") == "R,S(0),S(1)");
  CHECK(p.at("tokens") == "S(0),S(0),R");
  CHECK(p.at("logits.tangent") == "S(0),S(0),S(2)");
  // The optimum reads and writes the data as the pinned plan does, so it is never slower.
  const Json& c = j["compare_optimal"];
  CHECK(c["pinned"]["total_us"].get<double>() >= c["optimal"]["total_us"].get<double>());
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
  err = cli_failure(kTiny + "--mesh " + mesh("cp.json", R"("dp_shard", "cp")", "2, 2") +
                        " --parallelize torchtitan",
                    3);
  CHECK(has(err, "mesh dim 'cp': context parallel (cp) is not supported yet"));
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
