// Shipped configurations by name (`--model llama3-tiny`, `--mesh 2x2`), inline meshes
// (`--mesh dp=2,tp=2 --flatten dp,tp`), from any working directory, and `dtplan list`.

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "support/cli.h"

namespace dtplan::testing {
namespace {

using Json = nlohmann::ordered_json;

// `dtplan plan ... --json` without what differs run to run (wall times). The greedy solver: what
// is tested is which files the names resolve to, which every solver sees alike, and the exact
// solver's proof on a 2-D mesh costs a minute under the sanitizers.
Json plan_doc(const std::string& args) {
  Json j = Json::parse(cli_output("plan " + args + " --solver greedy --json"));
  j.erase("timing");
  j["solver"].erase("time_s");
  return j;
}

bool has(const std::string& text, const std::string& part) {
  INFO(text);
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("config names: --model and --mesh by name are the shipped files") {
  const Json by_name = plan_doc("--model llama3-tiny --mesh 2x2");
  const Json by_path =
      plan_doc("--model configs/models/llama3-tiny.json --mesh configs/meshes/2x2.json");
  CHECK(by_name == by_path);
  // A typo names the flag, the nearest name and what ships.
  std::string err = cli_failure("plan --model llama3-tinny --mesh 2x2", 2);
  CHECK(has(err,
            "dtplan plan: error: --model: no model 'llama3-tinny'; did you mean "
            "'llama3-tiny'? (known: llama3-405b, llama3-70b, llama3-8b, llama3-tiny"));
  err = cli_failure("plan --model llama3-tiny --mesh 2x3", 2);
  CHECK(has(err, "--mesh: no mesh '2x3'; did you mean '2x2'?"));
  err = cli_failure("sweep --model llama3-tinny --world 4", 2);
  CHECK(has(err, "--model: no model 'llama3-tinny'"));
  // A path is still a path, even when missing.
  err = cli_failure("plan --model llama3-tiny --mesh missing/2x2.json", 2);
  CHECK(has(err, "--mesh: cannot read the mesh file missing/2x2.json"));
}

TEST_CASE("config names: inline meshes, with --flatten") {
  // configs/meshes/2x2.json is dp=2, tp=2 on the default hardware.
  CHECK(plan_doc("--model llama3-tiny --mesh dp=2,tp=2") ==
        plan_doc("--model llama3-tiny --mesh 2x2"));
  const Json flat = plan_doc("--model llama3-tiny --mesh dp=2,tp=2 --flatten dp,tp");
  CHECK(flat["mesh"]["flattened"][0]["name"] == "dp_tp");
  CHECK(flat["mesh"]["names"] == Json::array({"dp", "tp"}));
  for (const auto& [mesh, message] : std::vector<std::pair<std::string, std::string>>{
           {"dp=2,tp", "--mesh dp=2,tp: 'tp' is not NAME=SIZE"},
           {"dp=x", "--mesh dp=x: 'x' is not an integer"},
           {"=2", "--mesh =2: a dim has no name before '='"},
           {"dp=2,dp=2", "--mesh dp=2,dp=2: the dim name 'dp' repeats"},
           {"dp=0", "--mesh dp=0: mesh_shape (0,): dim 0 has size 0"}}) {
    CHECK(has(cli_failure("plan --model llama3-tiny --mesh " + mesh, 2), message));
  }
  CHECK(has(cli_failure("plan --model llama3-tiny --mesh dp=2,tp=2 --flatten dp,xx", 2),
            "--flatten dp,xx: Invalid mesh_dim_names"));
}

TEST_CASE("config names: found from any working directory, next to the executable") {
  const CliResult r = run_script(
      "cd / && \"$DTPLAN\" plan --model llama3-tiny --mesh dp_shard=2,tp=2 --parallelize "
      "torchtitan --json");
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  const Json j = Json::parse(r.out);
  CHECK(j["model"] == "llama3-tiny");
  CHECK(j["mesh"]["shape"] == Json::array({2, 2}));
}

TEST_CASE("dtplan list models|meshes|hardware: every shipped file, one line each") {
  for (const std::string what : {"models", "meshes", "hardware"}) {
    INFO(what);
    std::set<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(source_path("configs/" + what))) {
      if (e.path().extension() == ".json") files.insert(e.path().stem().string());
    }
    const Json list = Json::parse(cli_output("list " + what + " --json"));
    std::set<std::string> listed;
    for (const Json& e : list) {
      listed.insert(e["name"].get<std::string>());
      CHECK(!e["description"].get<std::string>().empty());
    }
    CHECK(listed == files);
    const std::string text = cli_output("list " + what);
    CHECK(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) == files.size());
  }
  const Json models = Json::parse(cli_output("list models --json"));
  CHECK(models.front()["name"] == "llama3-405b");  // sorted by name
  const std::string meshes = "\n" + cli_output("list meshes");
  const std::size_t line = meshes.find("\n8x8 ");
  REQUIRE(line != std::string::npos);
  CHECK(has(meshes.substr(line, meshes.find('\n', line + 1) - line),
            "dp=8, tp=8, flattened dp+tp, on h100-dgx"));
  CHECK(has(cli_failure("list foo", 2),
            "dtplan list: error: 'foo': not one of models, meshes, hardware"));
}

}  // namespace dtplan::testing
