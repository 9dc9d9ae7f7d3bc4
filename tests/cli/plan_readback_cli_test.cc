// Plans read back by `dtplan simulate --plan` and `dtplan replay --plan` are checked, not
// trusted: each hand edit of the issue (a step cost of 1e308, 2^62 bytes, a tensor shape that no
// longer matches its byte counts, S(9) on a 2-D tensor, layers 1000) is exit 2 from both
// commands, naming the file and the field, with nothing on stdout; the unedited plans run.

#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support/cli.h"

namespace dtplan::testing {
namespace {

using Json = nlohmann::ordered_json;

std::string temp_path(const std::string& name) {
  return "/tmp/dtplan_readback_" + name + "_" + std::to_string(::getpid()) + ".json";
}

// A temporary file holding `doc`, removed at scope exit.
struct TempPlan {
  std::string path;
  TempPlan(const Json& doc, const std::string& name) : path(temp_path(name)) {
    std::ofstream(path) << doc.dump(1) << "\n";
  }
  ~TempPlan() { std::remove(path.c_str()); }
};

// Both readers refuse `doc` with exit 2 naming `field`.
void refused(const Json& doc, const std::string& name, const std::string& field) {
  TempPlan plan(doc, name);
  INFO(name << ": " << field);
  const std::string needle = plan.path + ": field '" + field + "': ";
  const std::string sim = cli_failure("simulate --plan " + plan.path, 2);
  CHECK(sim.starts_with("dtplan simulate: error: " + needle));
  const std::string rep =
      cli_failure("replay --plan " + plan.path + " --backend fake --iters 1 --warmup 0", 2);
  CHECK(rep.starts_with("dtplan replay: error: " + needle));
}

// The whole-model plan of the tiny LLaMA3 (one layer) on 2x4, and its first redistribution
// whose first step is a collective over a 2-D tensor.
Json model_plan() {
  const std::string path = temp_path("model");
  cli_output(
      "plan --model configs/models/llama3-tiny.json --mesh configs/meshes/2x4.json "
      "--layers 1 --out " +
      path);
  std::ifstream in(path);
  Json doc = Json::parse(in);
  std::remove(path.c_str());
  return doc;
}

std::size_t two_d_redistribution(const Json& doc) {
  for (std::size_t r = 0; r < doc["redistributions"].size(); ++r) {
    const Json& rd = doc["redistributions"][r];
    if (rd["tensor"]["shape"].size() == 2 && rd["steps"][0]["group_size"] > 1) return r;
  }
  FAIL("no redistribution of a 2-D tensor");
  return 0;
}

TEST_CASE("plan read-back: the issue's edits of a whole-model plan are exit 2 naming the field") {
  const Json good = model_plan();
  {
    TempPlan plan(good, "good");
    cli_output("simulate --plan " + plan.path);
    cli_output("replay --plan " + plan.path + " --backend fake --iters 1 --warmup 0");
  }
  const std::size_t r = two_d_redistribution(good);
  const std::string rd = "redistributions[" + std::to_string(r) + "]";
  const std::size_t producer = good["redistributions"][r]["producer"].get<std::size_t>();

  Json j = good;
  j["redistributions"][r]["steps"][0]["cost_us"] = 1e308;
  refused(j, "cost", rd + ".steps[0].cost_us");

  j = good;
  j["redistributions"][r]["steps"][0]["bytes"] = std::int64_t{1} << 62;
  refused(j, "bytes", rd + ".steps[0].bytes");

  j = good;  // the tensor and its producer both twice as long: the byte counts no longer match
  const std::int64_t rows = good["ops"][producer]["shape"][0].get<std::int64_t>() * 2;
  j["redistributions"][r]["tensor"]["shape"][0] = rows;
  j["ops"][producer]["shape"][0] = rows;
  refused(j, "shape", rd + ".steps[0].bytes");

  j = good;
  j["ops"][producer]["placements"] = "S(9),R";
  refused(j, "placement", "ops[" + std::to_string(producer) + "].placements");

  j = good;
  j["layers"] = 1000;
  refused(j, "layers", "layers");
}

TEST_CASE(
    "plan read-back: the issue's edits of a redistribution plan are exit 2 naming the field") {
  const Json good = Json::parse(cli_output(
      "redistribute --mesh 2,4 --names dp,tp --shape 16,16 --from 'S(0),P(sum)' --to 'R,R' "
      "--json"));
  REQUIRE(good["steps"].size() == 2);
  {
    TempPlan plan(good, "redist_good");
    cli_output("simulate --plan " + plan.path);
    cli_output("replay --plan " + plan.path + " --backend fake --iters 1 --warmup 0");
  }
  Json j = good;
  j["steps"][1]["cost_us"] = 1e308;
  refused(j, "redist_cost", "steps[1].cost_us");

  j = good;
  j["steps"][0]["bytes"] = std::int64_t{1} << 62;
  refused(j, "redist_bytes", "steps[0].bytes");

  j = good;
  j["tensor"]["shape"] = Json({16, 24});
  refused(j, "redist_shape", "steps[0].bytes");

  j = good;
  j["src"] = "S(9),P(sum)";
  refused(j, "redist_placement", "src");

  j = good;  // one picosecond off the profile's price, the total to match
  const auto plus_ps = [](const Json& us) {
    return static_cast<double>(std::llround(us.get<double>() * 1e6) + 1) / 1e6;
  };
  j["steps"][1]["cost_us"] = plus_ps(good["steps"][1]["cost_us"]);
  j["total_cost_us"] = plus_ps(good["total_cost_us"]);
  refused(j, "redist_price", "steps[1].cost_us");
}

}  // namespace
}  // namespace dtplan::testing
