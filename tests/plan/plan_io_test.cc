// Whole-model plan JSON: round trip, the documented keys, kind detection, file writing, and
// errors that name the source and the field path.
#include "plan/plan_io.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/text_file.h"
#include "redist/redist_plan_io.h"
#include "support/plan_support.h"

namespace dtplan::plan {
namespace {

using Json = nlohmann::ordered_json;

std::vector<std::string> keys(const Json& j) {
  std::vector<std::string> out;
  for (auto it = j.begin(); it != j.end(); ++it) out.push_back(it.key());
  return out;
}

std::string read_error(const Json& doc) {
  auto r = read_plan_json(doc.dump(), "plan.json");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == core::ErrorKind::kBadInput);
  return r.error().message;
}

TEST_CASE("plan io: round trip and document shape") {
  const Plan p = testing::small_model_plan();
  const std::string text = plan_to_json(p);
  auto back = read_plan_json(text, "plan.json");
  REQUIRE(back.ok());
  CHECK(*back == p);
  CHECK(plan_to_json(*back) == text);
  const Json j = Json::parse(text);
  CHECK(keys(j) == std::vector<std::string>{"format", "version", "model", "layers", "training",
                                            "mesh", "nodes", "strategies", "solver", "cost",
                                            "memory", "collectives", "warnings", "ops",
                                            "redistributions"});
  CHECK(j["nodes"] == 4);
  CHECK(j["ops"][1]["placements"] == "R,S(1),R");
  CHECK(j["ops"][3]["phase"] == "backward");
  CHECK(j["redistributions"][0]["steps"][0]["collective"] == "all_gather");
  CHECK(j["redistributions"][0].find("mesh") == j["redistributions"][0].end());
  CHECK(keys(plan_summary_json(p)).size() == 13);
}

TEST_CASE("plan io: kind detection") {
  const Plan p = testing::small_model_plan();
  CHECK(is_model_plan_json(plan_to_json(p)));
  CHECK_FALSE(is_model_plan_json(redist::plan_to_json(p.redistributions[0].plan)));
  CHECK_FALSE(is_model_plan_json("{"));
  CHECK_FALSE(is_model_plan_json("[1,2]"));
}

TEST_CASE("plan io: errors name the field") {
  const Json good = Json::parse(plan_to_json(testing::small_model_plan()));
  CHECK(read_plan_json("{\"format\":", "p.json")
            .error()
            .message.starts_with("p.json: invalid JSON: parse error at line 1, column 11"));
  {
    Json j = good;
    j["format"] = "other";
    CHECK(read_error(j).find("plan.json: field 'format': expected 'dtplan-plan'") !=
          std::string::npos);
  }
  {
    Json j = good;
    j["version"] = 7;
    CHECK(read_error(j).find("field 'version': version 7 is not supported") != std::string::npos);
  }
  {
    Json j = good;
    j["ops"][2]["inputs"][0] = "x";
    CHECK(read_error(j).find("field 'ops[2].inputs[0]': expected an integer") != std::string::npos);
  }
  {
    Json j = good;
    j["ops"][0]["placements"] = "S(0),Q,R";
    CHECK(read_error(j).find("field 'ops[0].placements'") != std::string::npos);
  }
  {
    Json j = good;
    j["ops"][0]["compute_us"] = -1;
    CHECK(read_error(j).find("field 'ops[0].compute_us': must be a number >= 0") !=
          std::string::npos);
  }
  {
    Json j = good;
    j["nodes"] = 5;
    CHECK(read_error(j).find("field 'nodes': 5 is not the number of ops (4)") != std::string::npos);
  }
  {
    Json j = good;
    j["redistributions"][1]["steps"][0]["mesh_dims"] = Json::array({7});
    CHECK(read_error(j).find("field 'redistributions[1].steps[0].mesh_dims'") != std::string::npos);
  }
  {
    Json j = good;
    j["redistributions"][0].erase("trace");
    CHECK(read_error(j).find("field 'redistributions[0].trace': missing") != std::string::npos);
  }
  {
    Json j = good;
    j["redistributions"][0]["producer"] = 1;
    CHECK(read_error(j).find(
              "plan.json: field 'redistributions[0]': producer 1 does not feed slot 0") !=
          std::string::npos);
  }
  {
    Json j = good;
    j["memory"]["peak_bytes_per_rank"] = -3;
    CHECK(read_error(j).find("field 'memory.peak_bytes_per_rank': must be >= 0") !=
          std::string::npos);
  }
}

TEST_CASE("plan io: files are written whole or not at all") {
  const Plan p = testing::small_model_plan();
  const auto dir = std::filesystem::temp_directory_path() / "dtplan_plan_io_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "plan.json").string();
  REQUIRE(save_plan_file(p, path).ok());
  auto back = load_plan_file(path);
  REQUIRE(back.ok());
  CHECK(*back == p);
  auto missing = load_plan_file((dir / "none.json").string());
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("cannot read the plan file") != std::string::npos);
  auto unwritable = save_plan_file(p, (dir / "no-such-dir" / "plan.json").string());
  REQUIRE_FALSE(unwritable.ok());
  CHECK(unwritable.error().message.rfind(
            "plan file " + (dir / "no-such-dir" / "plan.json").string() + ": ", 0) == 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dtplan::plan
