// The checks of a whole-model plan read back from a file: planned and hand-made plans pass and
// re-price equal; each edited field is refused naming its path; the vocabularies the checks
// share with the lowering agree with it.

#include "plan/plan_check.h"

#include <doctest/doctest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "graph/op_kind.h"
#include "plan/plan_io.h"
#include "strategy/lower_plan.h"
#include "support/plan_support.h"
#include "support/profiles.h"
#include "support/readback.h"
#include "support/selection_testing.h"

namespace dtplan::plan {
namespace {

using Json = nlohmann::ordered_json;

// The tiny LLaMA3 with one layer planned on (2,2) dp,tp with dp_tp flattened.
const Plan& tiny_plan() {
  static const Plan plan = [] {
    const auto ctx = strategy::testing::context({2, 2}, {"dp", "tp"}, {{"dp", "tp"}});
    return strategy::testing::plan_or_fail(strategy::testing::tiny_llama3_graph(1), ctx, {}).plan;
  }();
  return plan;
}

// The error of reading `doc` back and re-pricing it on h100-dgx, or "" when both pass.
std::string error_of(const Json& doc) {
  return testing::readback_error(read_plan_json(doc.dump(), "plan.json"), [](const Plan& p) {
    return check_plan_prices(p, testing::profile("h100-dgx"));
  });
}

bool names(const std::string& error, const std::string& field) {
  return error.find("plan.json: field '" + field + "': ") == 0;
}

// The index of the first redistribution whose producer is a 2-D op, and that op.
std::pair<std::size_t, std::size_t> redistribution_of_2d(const Plan& p) {
  for (std::size_t r = 0; r < p.redistributions.size(); ++r) {
    const auto producer = static_cast<std::size_t>(p.redistributions[r].producer);
    if (p.ops[producer].shape.size() == 2 && p.ops[p.redistributions[r].consumer].op != "getitem") {
      return {r, producer};
    }
  }
  FAIL("no redistribution of a 2-D op");
  return {0, 0};
}

TEST_CASE("plan read-back: planned and hand-made plans pass and re-price equal") {
  for (const Plan& p : {tiny_plan(), testing::small_model_plan()}) {
    const std::string text = plan_to_json(p);
    auto back = read_plan_json(text, "plan.json");
    REQUIRE_MESSAGE(back.ok(), (back.ok() ? std::string() : back.error().message));
    CHECK(*back == p);
    CHECK(check_read_plan(*back).ok());
    auto priced = check_plan_prices(*back, testing::profile("h100-dgx"));
    CHECK_MESSAGE(priced.ok(), (priced.ok() ? std::string() : priced.error().message));
  }
  // The dtensor cost model's plans re-price through that model.
  strategy::ModelPlanOptions o;
  o.cost_model = redist::CostModelKind::kDTensor;
  const auto ctx = strategy::testing::context({2, 2}, {"dp", "tp"}, {{"dp", "tp"}});
  const Plan dt =
      strategy::testing::plan_or_fail(strategy::testing::tiny_llama3_graph(1), ctx, o).plan;
  REQUIRE_FALSE(dt.redistributions.empty());
  CHECK(error_of(plan_json(dt)).empty());
}

TEST_CASE("plan read-back: the issue's hand edits are refused naming the field") {
  const Plan& p = tiny_plan();
  const Json good = plan_json(p);
  REQUIRE(error_of(good).empty());
  const auto [r, producer] = redistribution_of_2d(p);
  const std::string rd = "redistributions[" + std::to_string(r) + "]";
  const std::string op = "ops[" + std::to_string(producer) + "]";

  Json j = good;  // a step cost of 1e308
  j["redistributions"][r]["steps"][0]["cost_us"] = 1e308;
  CHECK(names(error_of(j), rd + ".steps[0].cost_us"));

  j = good;  // 2^62 bytes
  j["redistributions"][r]["steps"][0]["bytes"] = std::int64_t{1} << 62;
  std::string e = error_of(j);
  CHECK(names(e, rd + ".steps[0].bytes"));
  CHECK(e.find("4611686018427387904 does not match ") != std::string::npos);

  j = good;  // a shape that no longer matches the byte counts
  j["redistributions"][r]["tensor"]["shape"][0] = p.ops[producer].shape[0] * 2;
  CHECK(names(error_of(j), rd + ".steps[0].bytes"));
  j["ops"][producer]["shape"][0] = p.ops[producer].shape[0] * 2;  // the op's too
  CHECK(names(error_of(j), rd + ".steps[0].bytes"));
  j = good;  // the producer's shape alone
  j["ops"][producer]["shape"][0] = p.ops[producer].shape[0] * 2;
  CHECK(names(error_of(j), rd + ".tensor.shape"));

  j = good;  // S(9) on a 2-D tensor
  j["ops"][producer]["placements"] = "S(9),R";
  CHECK(names(error_of(j), op + ".placements"));

  j = good;  // layers: 1000
  j["layers"] = 1000;
  CHECK(names(error_of(j), "layers"));
}

TEST_CASE("plan read-back: ops") {
  const Plan& p = tiny_plan();
  const Json good = plan_json(p);
  std::size_t mm = 0;
  while (p.ops[mm].inputs.empty()) ++mm;
  const std::string at = "ops[" + std::to_string(mm) + "]";
  struct Edit {
    std::string what;
    std::function<void(Json&)> edit;
    std::string field;  // the field the error must name
  };
  const std::vector<Edit> edits = {
      {"layer 1 of a one-layer plan (0 or -1)", [&](Json& j) { j["ops"][mm]["layer"] = 1; },
       at + ".layer"},
      {"an unknown role", [&](Json& j) { j["ops"][mm]["role"] = "weights"; }, at + ".role"},
      {"a parameter that is not a placeholder",
       [&](Json& j) { j["ops"][mm]["role"] = "parameter"; }, at + ".op"},
      {"a placeholder with inputs",
       [&](Json& j) {
         j["ops"][0]["inputs"] = Json::array();
         j["ops"][mm]["op"] = "placeholder";
       },
       at + ".inputs"},
      {"a compute time of 1e308", [&](Json& j) { j["ops"][mm]["compute_us"] = 1e308; },
       at + ".compute_us"},
      {"a compute time the total does not sum",
       [&](Json& j) { j["ops"][mm]["compute_us"] = p.ops[mm].compute_us + 1; }, "cost.compute_us"},
      {"no options", [&](Json& j) { j["ops"][mm]["options"] = 0; }, at + ".options"},
      {"options the strategy count does not sum",
       [&](Json& j) { j["ops"][mm]["options"] = p.ops[mm].options + 1; }, "strategies"},
      {"a strategy of the wrong arity", [&](Json& j) { j["ops"][mm]["strategy"] = "R,R"; },
       at + ".strategy"},
  };
  for (const Edit& e : edits) {
    INFO(e.what);
    Json j = good;
    e.edit(j);
    CHECK(names(error_of(j), e.field));
  }
}

TEST_CASE("plan read-back: redistributions against the ops' strategies") {
  const Plan& p = tiny_plan();
  const Json good = plan_json(p);
  const auto [r, producer] = redistribution_of_2d(p);
  const std::string rd = "redistributions[" + std::to_string(r) + "]";
  const PlanRedistribution& x = p.redistributions[r];
  // The producer's placements changed: they no longer are the redistribution's source.
  Json j = good;
  j["ops"][producer]["placements"] = x.plan.dst.placements() == p.ops[producer].placements
                                         ? "R,S(1)"
                                         : placement::format_placements(x.plan.dst.placements());
  CHECK_FALSE(error_of(j).empty());
  // The redistribution dropped: the consumer's input is left as its producer gives it.
  j = good;
  j["redistributions"].erase(r);
  CHECK(names(error_of(j), "ops[" + std::to_string(x.consumer) + "]"));
  // The consumer's strategy no longer takes what the redistribution makes.
  j = good;
  const std::string strategy = p.ops[x.consumer].strategy;
  const std::string dst = placement::format_placements(x.plan.dst.placements());
  const std::size_t arrow = strategy.find(" <-");
  const std::size_t at = strategy.find(dst, arrow);
  REQUIRE(at != std::string::npos);
  std::string edited = strategy;
  edited.replace(at, dst.size(), dst == "R,R" ? "S(0),R" : "R,R");
  j["ops"][x.consumer]["strategy"] = edited;
  CHECK_FALSE(error_of(j).empty());
}

TEST_CASE("plan read-back: summaries") {
  const Plan& p = tiny_plan();
  const Json good = plan_json(p);
  Json j = good;
  j["cost"]["total_us"] = p.cost.total_us * 2;
  CHECK(names(error_of(j), "cost.total_us"));
  REQUIRE_FALSE(p.collectives.empty());
  j = good;
  j["collectives"][0]["count"] = p.collectives[0].count + 1;
  CHECK(names(error_of(j), "collectives[0].count"));
  j = good;
  j["collectives"][0]["time_us"] = p.collectives[0].time_us * 1000;
  CHECK(names(error_of(j), "collectives[0].time_us"));
  j = good;
  j["memory"]["activation_bytes"] = p.memory.activation_bytes + 1;
  CHECK(names(error_of(j), "memory.peak_bytes_per_rank"));
  j = good;
  j["warnings"].push_back(
      {{"reason", "no_flattened_mesh"}, {"mesh_dims", {0, 5}}, {"message", "m"}});
  CHECK(names(error_of(j), "warnings[" + std::to_string(p.warnings.size()) + "].mesh_dims"));
}

TEST_CASE("plan read-back: the op kinds agree with the graph's") {
  CHECK(graph::op_name(graph::OpKind::kGetitem) == kGetitemOp);
  CHECK(graph::op_name(graph::OpKind::kPlaceholder) == kPlaceholderOp);
}

}  // namespace
}  // namespace dtplan::plan
