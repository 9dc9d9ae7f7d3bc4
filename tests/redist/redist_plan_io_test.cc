// Plan JSON: what `dtplan redistribute --json` writes reads back equal (random plans), the
// documented shape of the document, and errors that name the field.

#include "redist/redist_plan_io.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "support/cli.h"
#include "support/placement_specs.h"
#include "support/redist_support.h"

namespace dtplan::redist {
namespace {

using Json = nlohmann::ordered_json;

RedistPlan sample() {
  auto p = testing::make_planner(testing::mesh_context({2, 2, 2}, {"A", "B", "C"}, {{"A", "C"}}),
                                 CostModelKind::kNccl);
  auto r = p->plan_uncached(testing::spec_of({16, 16, 16}, "P(sum),R,P(sum)", {2, 2, 2}),
                            testing::spec_of({16, 16, 16}, "R,R,R", {2, 2, 2}), {});
  REQUIRE(r.ok());
  return *r;
}

std::string read_error(const std::string& text) {
  auto r = read_plan_json(text, "plan.json");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == core::ErrorKind::kBadInput);
  return r.error().message;
}

TEST_CASE("plan JSON: the document") {
  const RedistPlan plan = sample();
  Json j = Json::parse(plan_to_json(plan));
  CHECK(testing::json_keys(j.dump()) ==
        std::vector<std::string>{"mesh", "tensor", "src", "dst", "planner", "requested_planner",
                                 "model", "merge", "steps", "comm_counts", "total_cost_us",
                                 "warnings", "trace"});
  CHECK(j["comm_counts"].dump() ==
        R"({"all_gather":0,"all_reduce":1,"reduce_scatter":0,"all_to_all":0})");
  REQUIRE(j["steps"].size() == 1);
  const Json& s = j["steps"][0];
  CHECK(s["collective"] == "all_reduce");
  CHECK(s["mesh_dims"] == Json({0, 2}));
  CHECK(s["flattened_mesh"] == "A_C");
  CHECK(s["group_size"] == 4);
  CHECK(s["bytes"] == 16 * 16 * 16 * 4);
  CHECK(s["src"] == "P(sum)");
  CHECK(s["dst"] == "R");
  CHECK(s["algorithm"].is_string());
  CHECK(j["mesh"]["flattened"][0].dump() ==
        R"x({"name":"A_C","mesh_dims":[0,2],"layout":"((2,2)):((4,1))"})x");
  CHECK(j["trace"] == "P(sum)RP(sum)-->RRR");
}

TEST_CASE("plan JSON: random plans read back equal") {
  std::mt19937_64 rng(555);
  for (int i = 0; i < 60; ++i) {
    testing::RandomRequest req = testing::random_request(rng, i % 2 == 0, i % 3 == 0);
    testing::Names names;
    for (std::size_t d = 0; d < req.mesh.size(); ++d) names.push_back("d" + std::to_string(d));
    std::vector<testing::Names> flats;
    if (names.size() >= 2) flats.push_back({names[0], names[1]});
    auto p = testing::make_planner(testing::mesh_context(req.mesh, names, flats),
                                   i % 2 ? CostModelKind::kDTensor : CostModelKind::kNccl);
    auto plan = p->plan_uncached(req.src, req.dst, {});
    REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? std::string() : plan.error().message));
    const std::string text = plan_to_json(*plan);
    auto back = read_plan_json(text, "x.json");
    REQUIRE_MESSAGE(back.ok(), (back.ok() ? std::string() : back.error().message));
    CHECK(*back == *plan);
    CHECK(plan_to_json(*back) == text);
  }
}

TEST_CASE("plan JSON: errors name the field") {
  const std::string good = plan_to_json(sample());
  CHECK(read_error("{").starts_with("plan.json: invalid JSON: parse error at line 1, column 2"));
  Json j = Json::parse(good);
  j.erase("trace");
  CHECK(read_error(j.dump()).find("field 'trace': missing") != std::string::npos);
  j = Json::parse(good);
  j["steps"][0]["collective"] = "allreduce";
  CHECK(read_error(j.dump()).find("field 'steps[0].collective'") != std::string::npos);
  j = Json::parse(good);
  j["steps"][0]["flattened_mesh"] = "B_C";
  CHECK(read_error(j.dump()).find("no flattened mesh 'B_C'") != std::string::npos);
  j = Json::parse(good);
  j["steps"][0]["state"] = "R,P(sum),R";
  CHECK(read_error(j.dump()).find("is not the state it reaches") != std::string::npos);
  j = Json::parse(good);
  j["comm_counts"]["all_reduce"] = 2;
  CHECK(read_error(j.dump()).find("comm_counts") != std::string::npos);
  j = Json::parse(good);
  j["dst"] = "R,R,S(0)";
  CHECK(read_error(j.dump()).find("the steps end at") != std::string::npos);
  j = Json::parse(good);
  j["mesh"]["layouts"][0] = "2:3";
  CHECK_FALSE(read_plan_json(j.dump(), "plan.json").ok());
}

}  // namespace
}  // namespace dtplan::redist
