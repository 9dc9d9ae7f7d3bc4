#include "replay/replay_runner.h"

#include <doctest/doctest.h>

#include <random>

#include "replay/local_group.h"
#include "support/replay_plans.h"

namespace dtplan::replay {
namespace {

using core::DType;

ReplayOptions quick() {
  ReplayOptions o;
  o.timing = {1, 3, 1};
  return o;
}

TEST_CASE("replay runner: a redistribute plan on the fake backend (worked example)") {
  redist::RedistPlan plan =
      testing::redist_plan({2, 2, 2}, {"A", "B", "C"}, {{"A", "C"}}, {16, 16, 16}, DType::kF32,
                           "P(sum),R,P(sum)", "R,R,R");
  const ReplaySource source = from_redist_plan(plan);
  auto pg = LocalReplayGroup::create({.world_size = 8}).value();
  auto r = run_replay(*pg, source, quick());
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string() : r.error().message));
  CHECK(r->backend == "fake");
  CHECK(r->world == 8);
  CHECK(r->kind == PlanKind::kRedistribute);
  CHECK(r->hardware == plan.mesh.hardware);
  REQUIRE(r->entries.size() == 1);
  const ReplayEntry& e = r->entries[0];
  CHECK(e.job.collective == collective::Collective::kAllReduce);
  CHECK(e.check == CallCheck{8 * 4096, 0});
  CHECK(e.min_us <= e.measured_us);
  CHECK(e.measured_us <= e.max_us);
  CHECK(e.error == relative_error(e.job.predicted_us, e.measured_us));
  // all_reduce busbw = S / t x 2(n-1)/n.
  CHECK(e.predicted_busbw_gbps ==
        doctest::Approx(16384.0 / (e.job.predicted_us * 1e3) * 1.5).epsilon(1e-12));
  const ReplayVerify& v = r->verify;
  CHECK(v.ranks == 8);
  CHECK(v.redistributions == 1);
  CHECK(v.skipped == 0);
  CHECK(v.elements == 8 * 4096);  // R,R,R: every rank holds the whole tensor
  CHECK(v.wrong_elements == 0);
  CHECK(v.fake_mismatches == 0);
  CHECK(v.replicas_bitwise_equal);
  CHECK(v.replica_sets == 1);
  CHECK(v.collective_elements == 8 * 4096);
  CHECK(v.collective_wrong_elements == 0);
  CHECK(r->totals.predicted_us == e.job.predicted_us);
  CHECK(r->totals.measured_us == e.measured_us);
}

TEST_CASE("replay runner: every random plan verifies on the fake backend") {
  std::mt19937_64 rng(9001);
  int runs = 0;
  for (int i = 0; i < 120 && runs < 40; ++i) {
    auto maybe = testing::random_redist_plan(rng, 16);
    if (!maybe) continue;
    const redist::RedistPlan& plan = *maybe;
    const ReplaySource source = from_redist_plan(plan);
    auto pg =
        LocalReplayGroup::create({.world_size = mesh_world_size(source.mesh).value()}).value();
    ReplayOptions o = quick();
    o.timing = {0, 1, 1};
    auto r = run_replay(*pg, source, o);
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string() : r.error().message));
    ++runs;
    std::int64_t elements = 0;
    double predicted = 0;
    for (const ReplayEntry& e : r->entries) {
      elements += e.check.elements;
      predicted += static_cast<double>(e.job.count) * e.job.predicted_us;
      CHECK(e.check.wrong_elements == 0);
    }
    CHECK(r->verify.collective_elements == elements);
    CHECK(r->verify.collective_wrong_elements == 0);
    CHECK(r->verify.redistributions + r->verify.skipped == 1);
    CHECK(r->verify.wrong_elements == 0);
    CHECK(r->verify.fake_mismatches == 0);
    CHECK(r->verify.replicas_bitwise_equal);
    CHECK(r->totals.predicted_us == doctest::Approx(predicted));
  }
  CHECK(runs >= 20);
}

TEST_CASE("replay runner: errors") {
  redist::RedistPlan plan =
      testing::redist_plan({2, 2}, {"dp", "tp"}, {}, {8, 4}, DType::kF32, "S(0),R", "R,R");
  auto pg = LocalReplayGroup::create({.world_size = 8}).value();
  auto r = run_replay(*pg, from_redist_plan(plan), quick());
  REQUIRE(!r.ok());
  CHECK(r.error().kind == core::ErrorKind::kBadInput);
  CHECK(r.error().message == "the plan's mesh has 4 ranks, the fake world 8 (start 4 processes)");
  auto small = LocalReplayGroup::create({.world_size = 4}).value();
  ReplayOptions bad = quick();
  bad.timing.iters = 0;
  CHECK(run_replay(*small, from_redist_plan(plan), bad).error().kind == core::ErrorKind::kBadInput);
}

}  // namespace
}  // namespace dtplan::replay
