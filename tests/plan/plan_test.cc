// plan::check_plan: the hand-made plan passes; each broken field is named in the error.
#include "plan/plan.h"

#include <doctest/doctest.h>

#include "support/plan_support.h"

namespace dtplan::plan {
namespace {

std::string check_error(const Plan& p) {
  auto s = check_plan(p);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().kind == core::ErrorKind::kBadInput);
  return s.error().message;
}

TEST_CASE("plan: phase names round trip") {
  for (Phase p : {Phase::kForward, Phase::kBackward}) {
    CHECK(parse_phase(phase_name(p), "phase").value() == p);
  }
  auto bad = parse_phase("sideways", "ops[3].phase");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("ops[3].phase: unknown phase 'sideways'") != std::string::npos);
}

TEST_CASE("plan: check_plan accepts the hand-made plan") {
  const Plan p = testing::small_model_plan();
  CHECK(check_plan(p).ok());
  CHECK(p.redistributions[0].plan.comm_counts.all_gather == 1);
  CHECK(p.redistributions[1].plan.comm_counts.all_reduce == 1);
}

TEST_CASE("plan: check_plan names what is wrong") {
  const Plan good = testing::small_model_plan();
  {
    Plan p = good;
    p.ops[3].name = "x";
    CHECK(check_error(p).find("field 'ops[3].name': duplicate op name 'x'") != std::string::npos);
  }
  {
    Plan p = good;
    p.ops[2].inputs[1] = 2;
    CHECK(check_error(p).find("field 'ops[2].inputs[1]': 2 is not an earlier op than 'y'") !=
          std::string::npos);
  }
  {
    Plan p = good;
    p.ops[1].placements.pop_back();
    CHECK(check_error(p).find("field 'ops[1].placements': has 2 entries, the mesh has 3 dims") !=
          std::string::npos);
  }
  {
    Plan p = good;
    p.redistributions[0].producer = 1;
    CHECK(check_error(p).find("field 'redistributions[0]': producer 1 does not feed slot 0 of 'y' "
                              "(ops[2].inputs[0] is 0)") != std::string::npos);
  }
  {
    Plan p = good;
    p.redistributions[1].slot = 2;
    CHECK(check_error(p).find(
              "field 'redistributions[1]': slot 2 is not an input of its consumer 'z'") !=
          std::string::npos);
  }
  {
    Plan p = good;
    std::swap(p.redistributions[0], p.redistributions[1]);
    CHECK(check_error(p).find("field 'redistributions[1]': not in (consumer, slot) order") !=
          std::string::npos);
  }
  {
    Plan p = good;
    p.redistributions[0].plan.mesh.gpus_per_node = 4;
    CHECK(check_error(p).find("field 'redistributions[0]': its mesh is not the plan's mesh") !=
          std::string::npos);
  }
  {
    Plan p = good;
    p.redistributions[1].plan.steps.clear();
    CHECK(check_error(p).find("redistributions[1]") != std::string::npos);
  }
}

}  // namespace
}  // namespace dtplan::plan
