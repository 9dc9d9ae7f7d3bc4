// The checks of a redistribution plan read back from a file: the planner's plans pass them and
// re-price equal; each edited field is refused naming its path, with the figure it must have.

#include "redist/redist_plan_check.h"

#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

#include "redist/redist_plan_io.h"
#include "support/placement_specs.h"
#include "support/profiles.h"
#include "support/readback.h"
#include "support/redist_support.h"

namespace dtplan::redist {
namespace {

using Json = nlohmann::ordered_json;

// P(sum),R,P(sum) -> S(0),R,S(0) on (2,2,2) A,B,C with A_C flattened: one reduce_scatter on A_C.
RedistPlan sample(const std::string& dst = "S(0),R,S(0)", bool merge = true) {
  auto p = testing::make_planner(testing::mesh_context({2, 2, 2}, {"A", "B", "C"}, {{"A", "C"}}),
                                 CostModelKind::kNccl);
  auto r =
      p->plan_uncached(testing::spec_of({16, 16}, "P(sum),R,P(sum)", {2, 2, 2}),
                       testing::spec_of({16, 16}, dst, {2, 2, 2}), {PlannerKind::kAuto, merge});
  REQUIRE(r.ok());
  return *r;
}

// The error of reading `doc` back, or "" when it reads and re-prices on h100-dgx.
std::string error_of(const Json& doc) {
  return testing::readback_error(read_plan_json(doc.dump(), "plan.json"), [](const RedistPlan& p) {
    return check_plan_prices(p, testing::profile("h100-dgx"));
  });
}

bool names(const std::string& error, const std::string& field) {
  return error.find("field '" + field + "'") != std::string::npos;
}

TEST_CASE("plan check: the planners' plans pass and re-price to the picosecond") {
  const cost::HardwareProfile h100 = testing::profile("h100-dgx");
  std::mt19937_64 rng(2028);
  for (int i = 0; i < 60; ++i) {
    testing::RandomRequest req = testing::random_request(rng, i % 2 == 0, i % 3 == 0);
    testing::Names dims;
    for (std::size_t d = 0; d < req.mesh.size(); ++d) dims.push_back("d" + std::to_string(d));
    const MeshContext ctx =
        testing::mesh_context(req.mesh, dims, testing::random_flatten_sets(rng, dims));
    auto p = testing::make_planner(ctx, i % 2 ? CostModelKind::kDTensor : CostModelKind::kNccl);
    auto plan = p->plan_uncached(req.src, req.dst, {PlannerKind::kAuto, i % 4 != 0});
    REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? std::string() : plan.error().message));
    INFO(req.describe());
    auto desc = check_mesh_description(plan->mesh, ctx, "mesh");
    CHECK_MESSAGE(desc.ok(), (desc.ok() ? std::string() : desc.error().message));
    auto read = check_read_plan(*plan, ctx, "");
    CHECK_MESSAGE(read.ok(), (read.ok() ? std::string() : read.error().message));
    auto priced = check_plan_prices(*plan, h100);
    CHECK_MESSAGE(priced.ok(), (priced.ok() ? std::string() : priced.error().message));
  }
}

TEST_CASE("plan check: bytes, group sizes and totals against the mesh") {
  const Json good = plan_json(sample());
  REQUIRE(good["steps"].size() == 1);
  CHECK(error_of(good).empty());

  Json j = good;
  j["steps"][0]["bytes"] = std::int64_t{1} << 62;
  std::string e = error_of(j);
  CHECK(names(e, "steps[0].bytes"));
  // The merged reduce_scatter's output: 16x16 f32 over the 4 ranks of A_C on dim 0.
  CHECK(e.find("4611686018427387904 does not match f32[16,16] P(sum),R,P(sum) on mesh [2,2,2] "
               "(expected 256)") != std::string::npos);

  j = good;  // a shape the bytes were not computed for
  j["tensor"]["shape"] = Json({32, 16});
  CHECK(names(error_of(j), "steps[0].bytes"));

  j = good;
  j["steps"][0]["group_size"] = 2;
  CHECK(names(error_of(j), "steps[0].group_size"));

  j = good;
  j["total_cost_us"] = good["total_cost_us"].get<double>() * 2;
  CHECK(names(error_of(j), "total_cost_us"));
}

TEST_CASE("plan check: costs are whole picoseconds in range, and the profile's price") {
  const Json good = plan_json(sample());
  const double cost = good["steps"][0]["cost_us"].get<double>();
  REQUIRE(cost > 0);
  Json j = good;
  j["steps"][0]["cost_us"] = 1e308;
  j["total_cost_us"] = 1e308;
  std::string e = error_of(j);
  CHECK(names(e, "steps[0].cost_us"));
  CHECK(e.find("is not a cost in [0, 4503599627] us") != std::string::npos);

  j = good;
  j["steps"][0]["cost_us"] = cost + 1e-7;  // a tenth of a picosecond
  CHECK(names(error_of(j), "steps[0].cost_us"));

  // One picosecond more, with a total to match: only the profile can tell.
  j = good;
  const double plus_ps = static_cast<double>(std::llround(cost * 1e6) + 1) / 1e6;
  j["steps"][0]["cost_us"] = plus_ps;
  j["total_cost_us"] = plus_ps;
  auto read = read_plan_json(j.dump(), "plan.json");
  REQUIRE(read.ok());
  e = error_of(j);
  CHECK(names(e, "steps[0].cost_us"));
  CHECK(e.find("the nccl model on 'h100-dgx'") != std::string::npos);

  j = good;
  j["steps"][0]["algorithm"] = good["steps"][0]["algorithm"] == "Ring" ? "Tree" : "Ring";
  CHECK(names(error_of(j), "steps[0].algorithm"));
}

TEST_CASE("plan check: the profile must be the plan's and hold its GPUs per node") {
  const RedistPlan plan = sample();
  cost::HardwareProfile other = testing::profile("h100-dgx");
  other.name = "elsewhere";
  CHECK(names(check_plan_prices(plan, other).error().message, "mesh.hardware"));
  cost::HardwareProfile small = testing::profile("h100-dgx");
  small.node.gpus_per_node = 4;
  CHECK(names(check_plan_prices(plan, small).error().message, "mesh.gpus_per_node"));
}

TEST_CASE("plan check: planner, model and merge flag") {
  const Json good = plan_json(sample());
  REQUIRE(good["planner"] == "greedy");
  Json j = good;
  j["planner"] = "min-cost";  // auto runs greedy for default shard orders
  CHECK(names(error_of(j), "planner"));
  j = good;
  j["model"] = "fastest";
  CHECK(names(error_of(j), "model"));
  j = good;
  j["merge"] = false;  // yet its step runs on A_C
  CHECK(names(error_of(j), "steps[0].flattened_mesh"));
}

TEST_CASE("plan check: warnings") {
  // B and C hold P(sum), no flattened mesh over them: one no_flattened_mesh warning.
  auto p = testing::make_planner(testing::mesh_context({2, 2, 2}, {"A", "B", "C"}, {{"A", "C"}}),
                                 CostModelKind::kNccl);
  auto plan = p->plan_uncached(testing::spec_of({16, 16}, "R,P(sum),P(sum)", {2, 2, 2}),
                               testing::spec_of({16, 16}, "R,R,R", {2, 2, 2}), {});
  REQUIRE(plan.ok());
  const Json good = plan_json(*plan);
  REQUIRE(good["warnings"].size() == 1);
  CHECK(error_of(good).empty());
  Json j = good;
  j["warnings"][0]["mesh_dims"] = Json({2, 1});
  CHECK(names(error_of(j), "warnings[0].mesh_dims"));
  j = good;
  j["warnings"][0]["mesh_dims"] = Json({1, 3});
  CHECK(names(error_of(j), "warnings[0].mesh_dims"));
  j = good;
  j["warnings"].push_back(good["warnings"][0]);
  CHECK(names(error_of(j), "warnings[1]"));
  j = good;
  j["warnings"][0]["message"] = "";
  CHECK(names(error_of(j), "warnings[0].message"));
}

TEST_CASE("plan check: the mesh description is the mesh it builds") {
  const Json good = plan_json(sample());
  Json j = good;
  j["mesh"]["flattened"][0]["layout"] = "((2,2)):((2,1))";
  CHECK(names(error_of(j), "mesh.flattened[0]"));
  j = good;
  j["mesh"]["flattened"][0]["mesh_dims"] = Json({0, 1, 2});  // B is not in A_C's layout
  CHECK_FALSE(error_of(j).empty());
  j = good;
  j["mesh"]["layouts"][0] = "(2):(4)";
  CHECK(names(error_of(j), "mesh.layouts[0]"));
  j = good;
  j["mesh"]["hardware"] = "";
  CHECK(names(error_of(j), "mesh.hardware"));
}

}  // namespace
}  // namespace dtplan::redist
