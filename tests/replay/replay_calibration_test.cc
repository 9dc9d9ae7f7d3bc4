#include "replay/replay_calibration.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "cost/calibrate.h"
#include "cost/collective_model.h"
#include "support/profiles.h"

namespace dtplan::replay {
namespace {

using collective::Collective;

ReplayEntry entry(Collective c, std::int64_t n, cost::GroupTopology topo, std::int64_t size,
                  double measured_us) {
  CollectiveJob j;
  j.collective = c;
  j.group_size = n;
  j.topology = topo;
  j.dtype = core::DType::kBF16;
  j.nccl_bytes = size;
  j.bytes = size;
  j.count = 1;
  j.predicted_us = measured_us / 2;
  CallTiming t;
  t.median_us = measured_us;
  return make_entry(j, t, {});
}

TEST_CASE("replay calibration: runs by collective and layout (worked example)") {
  ReplayReport r;
  r.backend = "mpi";
  const cost::GroupTopology four{4, 1, 4, 4}, two{2, 1, 2, 2};
  r.entries = {entry(Collective::kAllGather, 4, four, 1024, 20),
               entry(Collective::kAllReduce, 2, two, 512, 15),
               entry(Collective::kAllGather, 4, four, 4096, 30),
               entry(Collective::kAllGather, 4, four, 8192, 0)};  // too fast: left out
  const auto runs = replay_runs(r, "r.json");
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].collective == Collective::kAllGather);
  CHECK(runs[0].layout == four);
  CHECK(runs[0].source == "r.json:all_gather/4");
  CHECK(runs[0].device == "mpi");
  REQUIRE(runs[0].rows.size() == 2);
  CHECK(runs[0].rows[0].size_bytes == 1024);
  CHECK(runs[0].rows[0].count == 128);  // 1024 B / 4 ranks / 2 B
  CHECK(runs[0].rows[0].time_us == 20);
  CHECK(runs[0].rows[1].size_bytes == 4096);
  CHECK(runs[1].collective == Collective::kAllReduce);
  CHECK(runs[1].rows.size() == 1);
}

TEST_CASE("replay calibration: the fitted profile reproduces the measured times within 5%") {
  // Random measurements with a latency + bandwidth shape (monotone in size, as real ones mostly
  // are) on several collectives and layouts; calibrate() must answer every one within 5%.
  std::mt19937_64 rng(2718);
  const cost::HardwareProfile base = testing::profile("h100-dgx");
  for (int round = 0; round < 10; ++round) {
    ReplayReport r;
    r.backend = "mpi";
    const Collective kinds[] = {Collective::kAllGather, Collective::kReduceScatter,
                                Collective::kAllReduce, Collective::kAllToAll};
    const cost::GroupTopology layouts[] = {{2, 1, 2, 2}, {4, 1, 4, 4}, {8, 2, 4, 4}};
    std::uniform_real_distribution<double> lat(5, 60), gbps(0.5, 40), noise(0.97, 1.03);
    for (const Collective c : kinds) {
      for (const cost::GroupTopology& t : layouts) {
        if (rng() % 2 == 0) continue;
        const double a = lat(rng), bw = gbps(rng);
        for (std::int64_t size = 4096; size <= (std::int64_t{1} << 24); size *= 4) {
          const double us = (a + static_cast<double>(size) / (bw * 1e3)) * noise(rng);
          r.entries.push_back(entry(c, t.ranks, t, size, us));
        }
      }
    }
    if (r.entries.empty()) continue;
    auto runs = replay_runs(r, "r.json");
    auto cal = cost::calibrate(base, runs, "fitted");
    REQUIRE_MESSAGE(cal.ok(), (cal.ok() ? std::string() : cal.error().message));
    auto model = cost::make_collective_model(cal->profile, {cost::ModelKind::kNccl, true, false});
    for (const ReplayEntry& e : r.entries) {
      auto c = model->cost(e.job.collective, e.job.nccl_bytes, e.job.topology);
      REQUIRE(c.ok());
      INFO(collective::name(e.job.collective) << " " << e.job.nccl_bytes);
      CHECK(std::abs(c->time_us - e.measured_us) <= 0.05 * e.measured_us);
    }
    for (const cost::CalibratedTable& t : cal->tables) CHECK(t.max_error_pct <= 5.0);
  }
}

}  // namespace
}  // namespace dtplan::replay
