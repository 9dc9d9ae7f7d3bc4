#include "replay/plan_verify.h"

#include <doctest/doctest.h>

#include <random>

#include "replay/local_group.h"
#include "sim/verify.h"
#include "support/corrupting_group.h"
#include "support/replay_plans.h"

namespace dtplan::replay {
namespace {

using core::DType;

TEST_CASE("plan verify: a flattened all_reduce on the fake backend (worked example)") {
  redist::RedistPlan plan = testing::redist_plan({2, 2, 2}, {"A", "B", "C"}, {{"A", "C"}}, {4, 4},
                                                 DType::kF32, "P(sum),R,P(sum)", "R,R,R");
  auto pg = LocalReplayGroup::create({.world_size = 8}).value();
  auto v = verify_redistribution(*pg, plan, {});
  REQUIRE_MESSAGE(v.ok(), (v.ok() ? std::string() : v.error().message));
  // R,R,R: all 8 ranks hold 16 elements, one replica set of 8.
  CHECK(*v == PlanVerify{false, 8 * 16, 0, 0, 1, 0});
}

TEST_CASE("plan verify: a faulty backend is caught three ways") {
  redist::RedistPlan plan = testing::redist_plan({2, 2, 2}, {"A", "B", "C"}, {{"A", "C"}}, {4, 4},
                                                 DType::kBF16, "P(sum),R,P(sum)", "R,R,R");
  testing::CorruptingGroup bad(LocalReplayGroup::create({.world_size = 8}).value(), 5);
  auto v = verify_redistribution(bad, plan, {});
  REQUIRE_MESSAGE(v.ok(), (v.ok() ? std::string() : v.error().message));
  CHECK(v->fake_mismatches == 1);
  CHECK(v->wrong_elements == 1);
  CHECK(v->differing_replica_sets == 1);
}

TEST_CASE("plan verify: random plans verify on the fake backend, larger worlds too") {
  std::mt19937_64 rng(1234);
  int verified = 0;
  for (int i = 0; i < 150 && verified < 40; ++i) {
    auto plan = testing::random_redist_plan(rng, 16);
    if (!plan) continue;
    const std::int64_t world = mesh_world_size(plan->mesh).value() + (i % 3 == 0 ? 2 : 0);
    auto pg = LocalReplayGroup::create({.world_size = world}).value();
    auto v = verify_redistribution(*pg, *plan, {});
    REQUIRE_MESSAGE(v.ok(), (v.ok() ? std::string() : v.error().message));
    if (v->skipped) continue;
    ++verified;
    // The backend is the fake: its result is the fake's, and verify_plan's count is the count.
    CHECK(v->fake_mismatches == 0);
    const sim::VerifyReport want =
        sim::verify_plan(*plan, {.values = sim::ValueKind::kInteger, .world_size = world}).value();
    CHECK(v->wrong_elements == want.wrong_elements);
    CHECK(v->wrong_elements == 0);
    CHECK(v->elements == want.elements);
    CHECK(v->replica_sets == want.replica_sets);
    CHECK(v->differing_replica_sets == want.differing_replica_sets);
  }
  CHECK(verified >= 20);
}

TEST_CASE("plan verify: skips what the fake cannot hold, errors on a small world") {
  redist::RedistPlan plan =
      testing::redist_plan({2, 2}, {"dp", "tp"}, {}, {64, 64}, DType::kF32, "S(0),R", "R,R");
  auto pg = LocalReplayGroup::create({.world_size = 4}).value();
  CHECK(verify_redistribution(*pg, plan, {.max_bytes = 1024}).value().skipped);
  auto small = LocalReplayGroup::create({.world_size = 2}).value();
  CHECK(verify_redistribution(*small, plan, {}).error().kind == core::ErrorKind::kBadInput);
}

}  // namespace
}  // namespace dtplan::replay
