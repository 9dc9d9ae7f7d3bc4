// `dtplan plan`: the JSON document's fields, the human tables, and the exit codes of bad input
// (2: unknown solver, unreadable or malformed files) and infeasible requests (3: a memory limit
// below the minimum, with the minimum in the message). Tiny model, 1-D meshes: fast.

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "plan/plan_io.h"
#include "support/cli.h"

namespace dtplan::testing {
namespace {

using Json = nlohmann::ordered_json;

std::string temp_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("dtplan_plan_cli_" + name);
  std::ofstream(path) << text;
  return path.string();
}

std::string mesh4() {
  return temp_file("mesh4.json", R"({"shape": [4], "names": ["dp"], "hardware": "h100-dgx"})");
}

const std::string kTiny = "plan --model configs/models/llama3-tiny.json ";

bool has(const std::string& text, const std::string& part) {
  INFO(text);
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("dtplan plan --json: the solver, cost, memory and collectives of the tiny model") {
  const Json j = Json::parse(cli_output(kTiny + "--mesh " + mesh4() + " --layers 2 --json"));
  const std::vector<std::string> keys = json_keys(j.dump());
  for (const char* k :
       {"format", "model", "layers", "mesh", "nodes", "strategies", "solver", "cost", "memory",
        "collectives", "warnings", "timing", "problem", "redistributions"}) {
    CHECK(std::find(keys.begin(), keys.end(), k) != keys.end());
  }
  CHECK(j["layers"] == 2);
  CHECK(j["nodes"].get<std::int64_t>() > 500);
  CHECK(j["strategies"].get<std::int64_t>() >= j["nodes"].get<std::int64_t>());
  CHECK(json_keys(j["solver"].dump()) == std::vector<std::string>{"name", "time_s", "objective_us",
                                                                  "lower_bound_us", "optimal",
                                                                  "stop_reason"});
  CHECK(j["solver"]["stop_reason"] == "");  // proven: nothing stopped it
  CHECK(j["solver"]["name"] == "exact");
  CHECK(j["solver"]["optimal"] == true);
  CHECK(json_keys(j["cost"].dump()) == std::vector<std::string>{"compute_us", "communication_us",
                                                                "redistribution_us", "total_us"});
  const double total = j["cost"]["total_us"];
  CHECK(total == doctest::Approx(j["solver"]["objective_us"].get<double>()));
  CHECK(total == doctest::Approx(j["cost"]["compute_us"].get<double>() +
                                 j["cost"]["communication_us"].get<double>() +
                                 j["cost"]["redistribution_us"].get<double>()));
  CHECK(j["memory"]["peak_bytes_per_rank"].get<std::int64_t>() > 0);
  for (const Json& c : j["collectives"]) {
    CHECK(c["count"].get<std::int64_t>() > 0);
    CHECK(c["time_us"].get<double>() >= 0);
  }
  CHECK(j["warnings"].is_array());
  // The greedy solver on the same problem: feasible, never better than the optimum.
  const Json g =
      Json::parse(cli_output(kTiny + "--mesh " + mesh4() + " --layers 2 --solver greedy --json"));
  CHECK(g["solver"]["name"] == "greedy");
  CHECK(g["solver"]["objective_us"].get<double>() >= j["solver"]["objective_us"].get<double>());
}

TEST_CASE("dtplan plan --out: writes the whole plan, which reads back") {
  const std::string out =
      (std::filesystem::temp_directory_path() / "dtplan_plan_cli_out.json").string();
  std::filesystem::remove(out);
  const Json j =
      Json::parse(cli_output(kTiny + "--mesh " + mesh4() + " --layers 1 --out " + out + " --json"));
  auto p = plan::load_plan_file(out);
  REQUIRE_MESSAGE(p.ok(), (p.ok() ? "" : p.error().message));
  CHECK(static_cast<std::int64_t>(p->ops.size()) == j["nodes"].get<std::int64_t>());
  CHECK(static_cast<std::int64_t>(p->redistributions.size()) ==
        j["redistributions"].get<std::int64_t>());
  CHECK(p->solver.objective_us == j["solver"]["objective_us"].get<double>());
  std::filesystem::remove(out);
  CHECK(
      has(cli_failure(kTiny + "--mesh " + mesh4() + " --layers 1 --out /nonexistent/dir/p.json", 2),
          "--out"));
}

// The lines of `text`.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST_CASE("dtplan plan: human output fits a screen, the headline first") {
  const std::string out = cli_output(kTiny + "--mesh " + mesh4() + " --layers 2");
  const std::vector<std::string> lines = lines_of(out);
  INFO(out);
  CHECK(lines.size() <= 80);
  REQUIRE(lines.size() >= 6);
  CHECK(lines[0].starts_with("# dtplan plan: llama3-tiny (2 layers) on dp 4 (4 GPUs); h100-dgx ("));
  CHECK(lines[1].starts_with("# simulated step "));
  CHECK(has(lines[1], " tokens/s per GPU, MFU "));
  CHECK(lines[2].starts_with("# peak memory per rank "));
  CHECK(lines[3].starts_with("# solver exact (optimal): objective "));
  // Parameters by family: one line for a family alike in both layers, with torchtitan's name.
  CHECK(has(out, "# parameters by family"));
  CHECK(has(out, "layers.*.attention.wq.weight"));
  CHECK_FALSE(has(out, "layers.1.attention.wq.weight"));
  CHECK(has(out, "FSDP(dp)"));
  CHECK(has(out, "costliest redistributions per step"));
  CHECK(has(out, "# cost per step, nothing overlapped: compute "));
  CHECK(has(out, "# collectives per step"));
  CHECK(has(out, "# memory per rank (the plan's): peak "));
  // The op table only with --ops.
  CHECK_FALSE(has(out, "# strategies of layer"));
  const std::string ops = cli_output(kTiny + "--mesh " + mesh4() + " --layers 2 --ops");
  // The same view first (all but the solver's times), then the op table.
  const std::string view = out.substr(out.find("# step: "));
  CHECK(ops.find(view) != std::string::npos);
  CHECK(ops.find("# strategies outside the layers") > ops.find(view));
  CHECK(has(ops, "# strategies outside the layers"));
  CHECK(has(ops, "attention.wq.einsum"));
  CHECK_FALSE(has(ops, "layers.0.attention.wq.einsum"));  // layer ops print without prefix
  const std::string each =
      cli_output(kTiny + "--mesh " + mesh4() + " --layers 2 --ops --all-layers");
  CHECK(has(each, "# strategies of layer 0\n"));
  CHECK(has(each, "# strategies of layer 1\n"));
}

TEST_CASE("dtplan plan: the costliest redistributions are ranked by their cost per step") {
  const std::string out = cli_output(kTiny + "--mesh " + mesh4() + " --layers 2");
  const std::vector<std::string> lines = lines_of(out);
  auto first = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("costliest redistributions per step") != std::string::npos;
  });
  REQUIRE(first != lines.end());
  std::vector<double> per_step;
  for (auto it = first + 3; it != lines.end() && !it->starts_with("#"); ++it) {
    per_step.push_back(std::stod(it->substr(it->find_last_of(' ') + 1)));
  }
  INFO(out);
  CHECK(per_step.size() >= 1);
  CHECK(per_step.size() <= 10);
  CHECK(std::is_sorted(per_step.rbegin(), per_step.rend()));
  CHECK(per_step.back() > 0);
}

TEST_CASE("dtplan plan: a memory limit below the minimum exits 3 with the minimum") {
  const std::string err =
      cli_failure(kTiny + "--mesh " + mesh4() + " --layers 1 --memory-limit 1KiB", 3);
  CHECK(has(err, "memory limit 1024 B"));
  CHECK(has(err, "below the minimum feasible"));
  const Json ok = Json::parse(
      cli_output(kTiny + "--mesh " + mesh4() + " --layers 1 --memory-limit 1GiB --json"));
  CHECK(ok["memory"]["limit_bytes"] == std::int64_t{1} << 30);
  CHECK(ok["memory"]["peak_bytes_per_rank"].get<std::int64_t>() <= std::int64_t{1} << 30);
}

TEST_CASE("dtplan plan: bad input exits 2 naming the solver, file or field") {
  CHECK(has(cli_failure(kTiny + "--mesh " + mesh4() + " --solver simplex", 2), "simplex"));
  CHECK(has(cli_failure("plan --model nowhere.json --mesh " + mesh4(), 2), "nowhere.json"));
  CHECK(has(cli_failure(kTiny + "--mesh nowhere_mesh.json", 2), "nowhere_mesh.json"));
  const std::string bad_model =
      temp_file("bad_model.json", R"({"builder": "llama3", "name": "x", "dim": 64, "n_layers": 1,
        "n_heads": 4, "n_kv_heads": 3, "vocab_size": 256, "ffn_dim": 128, "batch": 4,
        "seq_len": 16})");
  const std::string err = cli_failure("plan --model " + bad_model + " --mesh " + mesh4(), 2);
  CHECK(has(err, bad_model));
  CHECK(has(err, "n_kv_heads"));
  const std::string bad_mesh = temp_file("bad_mesh.json", R"({"shape": [0]})");
  CHECK(has(cli_failure(kTiny + "--mesh " + bad_mesh, 2), bad_mesh));
  CHECK(
      has(cli_failure(kTiny + "--mesh " + mesh4() + " --memory-limit lots", 2), "--memory-limit"));
  CHECK(has(cli_failure(kTiny + "--mesh " + mesh4() + " --gap 1", 2),
            "--gap: 1.000000 is not a relative gap in [0, 1)"));
  CHECK(has(cli_failure(kTiny + "--mesh " + mesh4() + " --cost-model fancy", 2), "--cost-model"));
  CHECK(has(cli_failure(kTiny, 2), "--mesh"));
}

}  // namespace dtplan::testing
