// dtplan compare on two plans of llama3-tiny (torchtitan's layout, FSDP on 4 ranks and FSDP x TP
// on 2 x 2): its figures checked against what `dtplan simulate --json` and the plan files
// themselves say, its output deterministic, and its bad input refused with one line.

#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "support/cli.h"
#include "support/temp_dir.h"

namespace dtplan::testing {
namespace {

using Json = nlohmann::json;

// The two plan files, written once for every test of this file.
struct Plans {
  TempDir dir{"compare_cli"};
  std::string fsdp = dir.at("fsdp.json");
  std::string fsdp_tp = dir.at("fsdp_tp.json");
  Plans() {
    const std::string base =
        "plan --model configs/models/llama3-tiny.json --parallelize torchtitan --mesh ";
    cli_output(base + "dp_shard=4 --out " + fsdp);
    cli_output(base + "dp_shard=2,tp=2 --out " + fsdp_tp);
  }
  std::string both() const { return fsdp + " " + fsdp_tp; }
};

const Plans& plans() {
  static const Plans p;
  return p;
}

Json plan_file(const std::string& path) { return Json::parse(file_text(path)); }

// Calls and bytes per rank of one collective kind in a plan file's own collectives.
std::pair<std::int64_t, std::int64_t> plan_collectives(const Json& plan, const std::string& kind) {
  std::int64_t count = 0;
  std::int64_t bytes = 0;
  for (const Json& c : plan["collectives"]) {
    if (kind.empty() || c["collective"] == kind) {
      count += c["count"].get<std::int64_t>();
      bytes += c["bytes"].get<std::int64_t>();
    }
  }
  return {count, bytes};
}

TEST_CASE("compare: step figures equal simulate's, ratios are their quotients") {
  const Plans& p = plans();
  const Json c = Json::parse(cli_output("compare " + p.both() + " --json"));
  CHECK(json_keys(cli_output("compare " + p.both() + " --json")) ==
        std::vector<std::string>{"plans", "collectives", "parameters"});
  REQUIRE(c["plans"].size() == 2);
  const std::string files[] = {p.fsdp, p.fsdp_tp};
  double step[2] = {};
  std::int64_t peak[2] = {};
  for (int i = 0; i < 2; ++i) {
    const Json& col = c["plans"][i];
    const Json sim = Json::parse(cli_output("simulate --plan " + files[i] + " --json"));
    const Json plan = plan_file(files[i]);
    CHECK(col["file"] == (i == 0 ? "fsdp.json" : "fsdp_tp.json"));
    CHECK(col["model"] == "llama3-tiny");
    step[i] = col["step_time_us"].get<double>();
    CHECK(step[i] == sim["timeline"]["step_time_us"].get<double>());
    CHECK(col["compute_us"] == sim["timeline"]["compute_us"]);
    CHECK(col["exposed_communication_us"] == sim["timeline"]["exposed_communication_us"]);
    CHECK(col["tokens_per_s_per_gpu"] == sim["throughput"]["tokens_per_s_per_gpu"]);
    CHECK(col["mfu"] == sim["throughput"]["mfu"]);
    CHECK(col["memory"] == plan["memory"]);
    peak[i] = plan["memory"]["peak_bytes_per_rank"].get<std::int64_t>();
  }
  CHECK(c["plans"][0]["mesh"]["names"] == Json{"dp_shard"});
  CHECK(c["plans"][1]["mesh"]["shape"] == Json{2, 2});
  CHECK(c["plans"][0]["step_time_ratio"].get<double>() == 1.0);
  CHECK(c["plans"][1]["step_time_ratio"].get<double>() == doctest::Approx(step[1] / step[0]));
  CHECK(c["plans"][1]["peak_memory_ratio"].get<double>() ==
        doctest::Approx(static_cast<double>(peak[1]) / static_cast<double>(peak[0])));
}

TEST_CASE("compare: collectives add up to each plan's own, by kind and by mesh dim") {
  const Plans& p = plans();
  const Json c = Json::parse(cli_output("compare " + p.both() + " --json"));
  const Json plan[] = {plan_file(p.fsdp), plan_file(p.fsdp_tp)};
  for (std::size_t i = 0; i < 2; ++i) {
    std::int64_t kind_count = 0;
    std::int64_t kind_bytes = 0;
    for (const Json& row : c["collectives"]["by_kind"]) {
      const auto [count, bytes] = plan_collectives(plan[i], row["collective"]);
      CHECK(row["plans"][i]["count"] == count);
      CHECK(row["plans"][i]["bytes"] == bytes);
      kind_count += count;
      kind_bytes += bytes;
    }
    std::int64_t dim_count = 0;
    std::int64_t dim_bytes = 0;
    for (const Json& row : c["collectives"]["by_mesh_dims"]) {
      dim_count += row["plans"][i]["count"].get<std::int64_t>();
      dim_bytes += row["plans"][i]["bytes"].get<std::int64_t>();
    }
    const auto [count, bytes] = plan_collectives(plan[i], "");
    CHECK(count > 0);
    CHECK(kind_count == count);
    CHECK(kind_bytes == bytes);
    CHECK(dim_count == count);
    CHECK(dim_bytes == bytes);
  }
  // The 1-D plan has nothing on tp; the FSDP x TP plan does.
  bool tp_row = false;
  for (const Json& row : c["collectives"]["by_mesh_dims"]) {
    if (row["mesh_dims"] != Json{"tp"}) continue;
    tp_row = true;
    CHECK(row["plans"][0]["count"] == 0);
    CHECK(row["plans"][1]["count"].get<std::int64_t>() > 0);
  }
  CHECK(tp_row);
}

TEST_CASE("compare: the tp-sharded weights differ, the norms do not") {
  const Plans& p = plans();
  const Json c = Json::parse(cli_output("compare " + p.both() + " --json"));
  const Json& params = c["parameters"];
  CHECK(params["models"] == "same");
  CHECK(params["unmatched_families"] == 0);
  // llama3-tiny: embedding, 7 linears and 2 norms per layer, final norm, output.
  CHECK(params["compared_families"] == 12);
  std::map<std::string, Json> differing;
  for (const Json& d : params["differing"]) differing[d["family"]] = d["placements"];
  REQUIRE(differing.contains("layers.*.attention.wq.weight"));
  CHECK(differing["layers.*.attention.wq.weight"] == Json{"S(0)", "_S(0,2),S(0)"});
  CHECK(differing.contains("layers.*.feed_forward.w2.weight"));
  for (const auto& [family, placements] : differing) {
    CHECK(family.find("norm") == std::string::npos);
    CHECK(family.find(".0.") == std::string::npos);  // layers collapsed
  }
  // A plan against itself: nothing differs, every ratio 1.
  const Json self = Json::parse(cli_output("compare " + p.fsdp + " " + p.fsdp + " --json"));
  CHECK(self["parameters"]["differing"].empty());
  CHECK(self["plans"][1]["step_time_ratio"].get<double>() == 1.0);
  CHECK(self["plans"][1]["file"] == p.fsdp);  // equal file names: the paths label them
}

TEST_CASE("compare: plans of different models compare the names they share") {
  const Plans& p = plans();
  std::string text = file_text(p.fsdp_tp);
  const std::string from = "\"model\": \"llama3-tiny\"";
  REQUIRE(text.find(from) != std::string::npos);
  text.replace(text.find(from), from.size(), "\"model\": \"llama3-other\"");
  const std::string other = p.dir.at("other.json");
  std::ofstream(other) << text;
  const Json c = Json::parse(cli_output("compare " + p.fsdp + " " + other + " --json"));
  CHECK(c["parameters"]["models"] == "differ");
  CHECK(cli_output("compare " + p.fsdp + " " + other).find("# the models differ") !=
        std::string::npos);
}

TEST_CASE("compare: the text table, deterministic") {
  const Plans& p = plans();
  const std::string text = cli_output("compare " + p.both());
  CHECK(text.starts_with("# dtplan compare: 2 plans, ratios against the first\n"));
  for (const char* row :
       {"step time (us)", "exposed communication (us)", "tokens/s per GPU", "MFU (%)",
        "peak memory per rank", "  optimizer", "all_gather", "on dp_shard", "on tp",
        "layers.*.attention.wq.weight", "parameters whose placements differ"}) {
    CHECK_MESSAGE(text.find(row) != std::string::npos, row);
  }
  CHECK(text.find("fsdp_tp.json") != std::string::npos);
  CHECK(text.find("4 (dp_shard)") != std::string::npos);
  CHECK(text.find("2x2 (dp_shard,tp)") != std::string::npos);
  CHECK(text == cli_output("compare " + p.both()));
  CHECK(cli_output("compare " + p.both() + " --json") ==
        cli_output("compare " + p.both() + " --json"));
}

TEST_CASE("compare: bad input is one line naming the input, exit 2, nothing on stdout") {
  const Plans& p = plans();
  CHECK(cli_failure("compare", 2).find("two or more") != std::string::npos);
  CHECK(cli_failure("compare " + p.fsdp, 2).find("two or more") != std::string::npos);
  const std::string missing = p.dir.at("missing.json");
  const std::string err = cli_failure("compare " + p.fsdp + " " + missing, 2);
  CHECK(err.find(missing) != std::string::npos);
  CHECK(err.find('\n') == err.size() - 1);
  // A model config and a redistribution plan are not whole-model plans.
  CHECK(cli_failure("compare " + p.fsdp + " configs/models/llama3-tiny.json", 2)
            .find("llama3-tiny.json: field 'format'") != std::string::npos);
  const std::string redist = p.dir.at("redist.json");
  std::ofstream(redist) << cli_output(
      "redistribute --mesh 2,2 --names dp,tp --shape 8,8 --from 'S(0),R' --to R,R --json");
  CHECK(cli_failure("compare " + redist + " " + p.fsdp, 2).find("redist.json: field 'format'") !=
        std::string::npos);
  // A plan cut short is refused naming the file.
  const std::string cut = p.dir.at("cut.json");
  std::ofstream(cut) << file_text(p.fsdp).substr(0, 200);
  CHECK(cli_failure("compare " + p.fsdp + " " + cut, 2).find("cut.json") != std::string::npos);
}

}  // namespace
}  // namespace dtplan::testing
