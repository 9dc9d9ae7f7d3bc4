#include "replay/local_group.h"

#include <doctest/doctest.h>

#include <random>

#include "support/sim_reference.h"

namespace dtplan::replay {
namespace {

using collective::Collective;
using core::DType;

TEST_CASE("local group: the fake behind the replay interface") {
  std::mt19937_64 rng(99);
  auto pg = LocalReplayGroup::create({.world_size = 6}).value();
  CHECK(pg->backend_name() == "fake");
  CHECK(pg->held_ranks() == std::vector<std::int64_t>{0, 1, 2, 3, 4, 5});
  CHECK(pg->process_index() == 0);
  CHECK(pg->barrier().ok());
  CHECK(pg->reduce_over_world({1, 2}, ReduceOp::kSum).value() == std::vector<double>{1, 2});
  CHECK(LocalReplayGroup::create({.world_size = 0}).error().kind == core::ErrorKind::kBadInput);

  auto fake = sim::FakeProcessGroup::create({.world_size = 6}).value();
  const Collective collectives[] = {Collective::kAllGather, Collective::kReduceScatter,
                                    Collective::kAllReduce, Collective::kAllToAll,
                                    Collective::kBroadcast};
  for (int iter = 0; iter < 40; ++iter) {
    const Collective c = collectives[rng() % 5];
    const CollectiveCall call{c, testing::random_groups(6, 3, 2, rng), ReduceOp::kAvg,
                              static_cast<std::int64_t>(rng() % 3)};
    RankTensors inputs(6);
    for (std::int64_t r = 0; r < 6; ++r) {
      inputs.set(r, testing::random_tensor(DType::kBF16, {6, 3}, rng));
    }
    RankTensors want = inputs;
    REQUIRE(fake.run(call, want).ok());
    RankTensors got = inputs;
    REQUIRE(pg->run(call, got).ok());
    CHECK(got == want);
    // Several timed launches leave exactly one call's outputs.
    RankTensors timed = inputs;
    const double us = pg->run_timed(call, timed, 3).value();
    CHECK(us >= 0);
    CHECK(timed == want);
  }
}

}  // namespace
}  // namespace dtplan::replay
