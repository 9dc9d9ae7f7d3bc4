#include "cost/alpha_beta_model.h"

#include <doctest/doctest.h>

#include <random>

#include "cost/nccl_model.h"
#include "support/profiles.h"

namespace dtplan::cost {
namespace {

using collective::Collective;
using testing::profile;

TEST_CASE("alpha-beta: parameters derived from the fabric and NCCL's constants") {
  AlphaBetaParams p = alpha_beta_params(profile("h100-dgx"));
  CHECK(p.launch_us == doctest::Approx(8.4));
  CHECK(p.intra_hop_us == doctest::Approx(3.4));
  CHECK(p.intra_gbyte_per_s == doctest::Approx(360.0));
  CHECK(p.inter_hop_us == doctest::Approx(14.0));
  CHECK(p.nic_gbyte_per_s == doctest::Approx(48.0));
  HardwareProfile custom = profile("h100-dgx");
  custom.alpha_beta = AlphaBetaParams{5, 1, 300, 10, 40};
  CHECK(alpha_beta_params(custom) == *custom.alpha_beta);
}

TEST_CASE("alpha-beta: worked examples") {
  AlphaBetaModel model(profile("h100-dgx"));
  const double gib = 1 << 30;
  // all_gather of 1 GiB on 2 x 8: 8.4 + 14 x 3.4 + 1 x 14 = 70 us, then 15/16 S at
  // min(360, 8 x 48) = 360 GB/s.
  auto ag = model.cost(Collective::kAllGather, 1 << 30, uniform_topology(2, 8)).value();
  CHECK(ag.latency_us == doctest::Approx(70.0));
  CHECK(ag.time_us == doctest::Approx(70.0 + 15.0 / 16 * gib / 360e3));
  CHECK(ag.algorithm == Algorithm::kRing);
  // all_reduce doubles steps and bytes.
  auto ar = model.cost(Collective::kAllReduce, 1 << 30, uniform_topology(2, 8)).value();
  CHECK(ar.latency_us == doctest::Approx(8.4 + 2 * (14 * 3.4 + 14)));
  CHECK(ar.time_us == doctest::Approx(ar.latency_us + 30.0 / 16 * gib / 360e3));
  // One GPU per node: the ring is NIC-bound (48 GB/s).
  auto dp = model.cost(Collective::kAllGather, 1 << 30, uniform_topology(8, 1)).value();
  CHECK(dp.time_us == doctest::Approx(8.4 + 7 * 14 + 7.0 / 8 * gib / 48e3));
  // all_to_all across 2 nodes: the off-node half through one NIC per GPU.
  auto a2a = model.cost(Collective::kAllToAll, 1 << 30, uniform_topology(2, 8)).value();
  CHECK(a2a.algorithm == Algorithm::kP2p);
  CHECK(a2a.time_us == doctest::Approx(8.4 + 7 * 3.4 + 8 * 14 + 0.5 * gib / 48e3));
  CHECK(model.name() == "alpha-beta");
}

TEST_CASE("alpha-beta: monotone in size; agrees with NCCL's ring on large single-node messages") {
  AlphaBetaModel ab(profile("h100-dgx"));
  std::mt19937_64 rng(5);
  for (int i = 0; i < 60; ++i) {
    GroupTopology t = uniform_topology(1 + static_cast<std::int32_t>(rng() % 8),
                                       1 + static_cast<std::int32_t>(rng() % 8));
    if (t.ranks < 2) continue;
    auto c = static_cast<Collective>(rng() % collective::kNumCollectives);
    double prev = 0;
    for (std::int64_t s = 1; s < (std::int64_t{1} << 34); s *= 3) {
      double now = ab.cost(c, s, t).value().time_us;
      CHECK(now >= prev);
      prev = now;
    }
  }
  // Bandwidth-bound all_gather on one node: both models use the 360 GB/s ring bus.
  NcclModel nccl(profile("h100-dgx"));
  std::int64_t big = std::int64_t{32} << 30;
  double a = ab.cost(Collective::kAllGather, big, uniform_topology(1, 8)).value().busbw_gbyte_per_s;
  double b =
      nccl.cost(Collective::kAllGather, big, uniform_topology(1, 8)).value().busbw_gbyte_per_s;
  CHECK(a == doctest::Approx(b).epsilon(0.01));
}

}  // namespace
}  // namespace dtplan::cost
