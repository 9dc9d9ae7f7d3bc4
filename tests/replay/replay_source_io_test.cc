#include "replay/replay_source_io.h"

#include <doctest/doctest.h>

#include "plan/plan_io.h"
#include "redist/redist_plan_io.h"
#include "support/cli.h"
#include "support/plan_support.h"
#include "support/replay_plans.h"

namespace dtplan::replay {
namespace {

TEST_CASE("replay source: a redistribute plan and a model plan") {
  redist::RedistPlan plan =
      testing::redist_plan({2, 2}, {"dp", "tp"}, {}, {8, 4}, core::DType::kF32, "S(0),R", "R,R");
  auto r = read_replay_source(redist::plan_to_json(plan), "r.json");
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string() : r.error().message));
  CHECK(*r == from_redist_plan(plan));
  CHECK(r->kind == PlanKind::kRedistribute);
  CHECK(r->redistributions.size() == 1);

  const plan::Plan model = testing::small_model_plan();
  auto m = read_replay_source(plan::plan_to_json(model), "m.json");
  REQUIRE_MESSAGE(m.ok(), (m.ok() ? std::string() : m.error().message));
  CHECK(*m == from_model_plan(model));
  CHECK(m->kind == PlanKind::kModel);
  CHECK(m->model == model.model);
  REQUIRE(m->redistributions.size() == model.redistributions.size());
  CHECK(m->redistributions[0].label == "op 2 'y' input 0");
  CHECK(m->ops == model.ops);
  CHECK(mesh_world_size(m->mesh).value() == 8);
}

TEST_CASE("replay source: the shipped model plan is small_model_plan's (costs aside)") {
  auto shipped =
      load_replay_source(testing::source_path("tests/data/replay/small_model_plan.json"));
  REQUIRE_MESSAGE(shipped.ok(), (shipped.ok() ? std::string() : shipped.error().message));
  const ReplaySource want = from_model_plan(testing::small_model_plan());
  CHECK(shipped->mesh.shape == want.mesh.shape);
  CHECK(shipped->mesh.ranks == want.mesh.ranks);
  CHECK(shipped->ops.size() == want.ops.size());
  REQUIRE(shipped->redistributions.size() == want.redistributions.size());
  for (std::size_t i = 0; i < want.redistributions.size(); ++i) {
    const auto& a = shipped->redistributions[i].plan.steps;
    const auto& b = want.redistributions[i].plan.steps;
    REQUIRE(a.size() == b.size());
    for (std::size_t s = 0; s < a.size(); ++s) CHECK(a[s].transform == b[s].transform);
  }
}

TEST_CASE("replay source: errors") {
  auto err = [](std::string_view text) { return read_replay_source(text, "p.json").error(); };
  CHECK(err("{").message.starts_with("p.json: invalid JSON: parse error at line 1, column 2"));
  CHECK(err("[]").message == "p.json: expected a JSON object (a plan)");
  CHECK(err("{\"a\": 1}").message.find("neither a redistribute plan") != std::string::npos);
  CHECK(err("{\"steps\": 1}").kind == core::ErrorKind::kBadInput);
  CHECK(err("{\"format\": \"dtplan-plan\"}").kind == core::ErrorKind::kBadInput);
  CHECK(load_replay_source("/nonexistent/p.json").error().message ==
        "--plan: cannot read the plan file /nonexistent/p.json: No such file or directory");
}

}  // namespace
}  // namespace dtplan::replay
