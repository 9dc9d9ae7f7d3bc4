#include "cost/measured_model.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "cost/nccl_model.h"
#include "support/profiles.h"

namespace dtplan::cost {
namespace {

using collective::Collective;

MeasuredTable table() {
  MeasuredTable t;
  t.collective = Collective::kAllGather;
  t.layout = uniform_topology(2, 8);
  t.points = {{1024, 20.0}, {4096, 30.0}, {1 << 20, 100.0}, {1 << 24, 1000.0}};
  t.source = "test";
  return t;
}

TEST_CASE("measured: exact at points, linear in log-size between them") {
  MeasuredTable t = table();
  for (const MeasuredPoint& p : t.points) CHECK(measured_time_us(t, p.size_bytes) == p.time_us);
  CHECK(measured_time_us(t, 2048) == doctest::Approx(25.0));  // half-way in log(size)
  // Below the first point: its time (latency floor).
  CHECK(measured_time_us(t, 1) == 20.0);
  CHECK(measured_time_us(t, 0) == 20.0);
  // Above the last: the last segment's bandwidth (900 us per 15 MiB).
  double slope = 900.0 / ((1 << 24) - (1 << 20));
  CHECK(measured_time_us(t, 1 << 25) == doctest::Approx(1000.0 + slope * (1 << 24)));
}

TEST_CASE("measured: monotone for random monotone tables") {
  std::mt19937_64 rng(31);
  for (int iter = 0; iter < 100; ++iter) {
    MeasuredTable t;
    std::int64_t size = 1 + static_cast<std::int64_t>(rng() % 1000);
    double time = 1 + static_cast<double>(rng() % 50);
    std::size_t n = 1 + rng() % 12;
    for (std::size_t i = 0; i < n; ++i) {
      t.points.push_back({size, time});
      size += 1 + static_cast<std::int64_t>(rng() % 100000);
      time += static_cast<double>(rng() % 1000) / 10.0;
    }
    double prev = 0;
    for (double s = 0; s < 2e6; s = s * 1.3 + 1) {
      double now = measured_time_us(t, static_cast<std::int64_t>(s));
      CHECK(now >= prev);
      prev = now;
    }
  }
}

TEST_CASE("measured: tables override the formulas only for their exact layout") {
  HardwareProfile p = testing::profile("h100-dgx");
  p.measured = {table()};
  REQUIRE(validate(p).ok());
  MeasuredModel model(p, std::make_unique<NcclModel>(p));
  NcclModel formulas(p);
  auto hit = model.cost(Collective::kAllGather, 4096, uniform_topology(2, 8)).value();
  CHECK(hit.time_us == 30.0);
  CHECK(hit.algorithm == Algorithm::kMeasured);
  CHECK(hit.algbw_gbyte_per_s == doctest::Approx(4096 / 30e3));
  CHECK(model.cost(Collective::kAllReduce, 4096, uniform_topology(2, 8)).value() ==
        formulas.cost(Collective::kAllReduce, 4096, uniform_topology(2, 8)).value());
  CHECK(model.cost(Collective::kAllGather, 4096, uniform_topology(4, 4)).value() ==
        formulas.cost(Collective::kAllGather, 4096, uniform_topology(4, 4)).value());
  CHECK(model.name() == "nccl");
  // The factory wires measured tables in unless told not to.
  auto with = make_collective_model(p, {});
  auto without = make_collective_model(p, {ModelKind::kNccl, false, true});
  CHECK(with->cost(Collective::kAllGather, 4096, uniform_topology(2, 8)).value().time_us == 30.0);
  CHECK(without->cost(Collective::kAllGather, 4096, uniform_topology(2, 8)).value().algorithm !=
        Algorithm::kMeasured);
}

}  // namespace
}  // namespace dtplan::cost
