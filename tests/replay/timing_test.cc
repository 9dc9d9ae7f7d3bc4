#include "replay/timing.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "replay/local_group.h"
#include "support/sim_reference.h"

namespace dtplan::replay {
namespace {

using collective::Collective;
using core::DType;
using core::ErrorKind;

// A ReplayGroup with scripted times: run_timed returns times[i] x launches for its i-th launch
// batch (after running the fake), barrier and reduce_over_world are counted, and the world
// reduction takes the element-wise max with `other_process` (another process's values).
class ScriptedGroup final : public ReplayGroup {
 public:
  ScriptedGroup(std::int64_t world, std::vector<double> times)
      : inner_(LocalReplayGroup::create({.world_size = world}).value()), times_(std::move(times)) {}

  [[nodiscard]] std::int64_t world_size() const override { return inner_->world_size(); }
  core::Status run(const CollectiveCall& call, RankTensors& t) override {
    return inner_->run(call, t);
  }
  [[nodiscard]] std::string_view backend_name() const override { return "scripted"; }
  [[nodiscard]] std::vector<std::int64_t> held_ranks() const override {
    return inner_->held_ranks();
  }
  [[nodiscard]] std::int64_t process_index() const override { return 0; }
  core::Status barrier() override {
    ++barriers;
    return {};
  }
  core::Result<double> run_timed(const CollectiveCall& call, RankTensors& t,
                                 int launches) override {
    DTPLAN_CHECK(inner_->run_timed(call, t, launches));
    if (fail_at == static_cast<int>(calls)) return core::Error::internal("scripted failure");
    return times_.at(calls++) * launches;
  }
  core::Result<std::vector<double>> reduce_over_world(std::vector<double> values,
                                                      ReduceOp op) override {
    CHECK(op == ReduceOp::kMax);
    ++reductions;
    if (values.size() == other_process.size()) {
      for (std::size_t i = 0; i < values.size(); ++i) {
        values[i] = std::max(values[i], other_process[i]);
      }
    }
    return values;
  }

  std::size_t calls = 0;
  int barriers = 0;
  int reductions = 0;
  int fail_at = -1;
  std::vector<double> other_process;

 private:
  std::unique_ptr<LocalReplayGroup> inner_;
  std::vector<double> times_;
};

RankTensors world_tensors(std::int64_t world, DType dtype, sim::Shape shape, std::mt19937_64& rng) {
  RankTensors t(world);
  for (std::int64_t r = 0; r < world; ++r) t.set(r, testing::random_tensor(dtype, shape, rng));
  return t;
}

TEST_CASE("timing: statistics and bandwidths, worked examples") {
  CHECK(timing_stats({4, 1, 3, 2}).value() == TimingStats{2.5, 1, 4});
  CHECK(timing_stats({5, 1, 3}).value() == TimingStats{3, 1, 5});
  CHECK(timing_stats({7}).value() == TimingStats{7, 7, 7});
  CHECK(timing_stats({}).error().kind == ErrorKind::kBadInput);
  CHECK(timing_stats({1, -1}).error().kind == ErrorKind::kBadInput);
  CHECK(timing_stats({1, NAN}).error().kind == ErrorKind::kBadInput);
  // docs/reference/collectives.md §1.1: algbw = S / t; busbw = algbw x 2(n-1)/n for all_reduce.
  CHECK(algbw_gbps(1'000'000'000, 1000.0) == 1000.0);
  CHECK(busbw_gbps(Collective::kAllReduce, 8, 1000.0) == 1750.0);
  CHECK(busbw_gbps(Collective::kAllGather, 8, 1000.0) == 875.0);
  CHECK(busbw_gbps(Collective::kReduceScatter, 4, 100.0) == 75.0);
  CHECK(busbw_gbps(Collective::kAllToAll, 2, 100.0) == 50.0);
  CHECK(busbw_gbps(Collective::kBroadcast, 8, 100.0) == 100.0);
  CHECK(algbw_gbps(1024, 0.0) == 0.0);
}

TEST_CASE("timing: the median is robust and statistics are ordered (property)") {
  std::mt19937_64 rng(42);
  for (int iter = 0; iter < 200; ++iter) {
    std::vector<double> s(1 + rng() % 30);
    for (double& v : s) v = static_cast<double>(rng() % 1000) / 8;
    const TimingStats st = timing_stats(s).value();
    CHECK(st.min_us <= st.median_us);
    CHECK(st.median_us <= st.max_us);
    const auto below =
        std::count_if(s.begin(), s.end(), [&](double v) { return v < st.median_us; });
    const auto above =
        std::count_if(s.begin(), s.end(), [&](double v) { return v > st.median_us; });
    CHECK(below <= static_cast<long>(s.size() / 2));
    CHECK(above <= static_cast<long>(s.size() / 2));
    // One huge outlier among two or more samples leaves the median within the others.
    if (s.size() >= 2) {
      std::vector<double> t = s;
      t.push_back(1e12);
      CHECK(timing_stats(t).value().median_us <= st.max_us);
    }
  }
}

TEST_CASE("timing: time_call follows the nccl-tests method on a scripted group") {
  std::mt19937_64 rng(7);
  const std::int64_t world = 8;
  // 2 warm-up + 5 timed samples; per-launch times after dividing by the 3 launches.
  ScriptedGroup pg(world, {100, 100, 9, 2, 7, 3, 5});
  pg.other_process = {0, 4, 0, 0, 0, 0};  // another process was slower on the 2nd sample
  const RankTensors inputs = world_tensors(world, DType::kBF16, {8, 16}, rng);
  const CollectiveCall call{
      Collective::kReduceScatter, {{0, 1, 2, 3}, {4, 5, 6, 7}}, ReduceOp::kSum, 0};
  const CallTiming t =
      time_call(pg, call, inputs, {.warmup_iters = 2, .iters = 5, .launches_per_iter = 3}).value();
  CHECK(pg.calls == 7);
  CHECK(pg.barriers == 7);
  CHECK(pg.reductions == 8);  // one failure check per iteration, one for the samples
  // Samples 9, max(2, 4) = 4, 7, 3, 5 -> median 5, min 3, max 9.
  CHECK(t == CallTiming{Collective::kReduceScatter, 4, 8 * 16 * 2, 5.0, 3.0, 9.0,
                        algbw_gbps(256, 5.0),
                        busbw_gbps(Collective::kReduceScatter, 4, algbw_gbps(256, 5.0))});
  CHECK(inputs.at(0).shape() == sim::Shape{8, 16});  // untouched
}

TEST_CASE("timing: S of every collective as nccl-tests defines it") {
  std::mt19937_64 rng(11);
  const std::int64_t world = 4;
  const RankTensors inputs = world_tensors(world, DType::kF32, {4, 8}, rng);  // 128 B per rank
  const std::pair<Collective, std::int64_t> cases[] = {
      {Collective::kAllGather, 512},                                    // total output
      {Collective::kReduceScatter, 128},                                // total input
      {Collective::kAllReduce, 128},     {Collective::kAllToAll, 128},  // one rank's send buffer
      {Collective::kBroadcast, 128},
  };
  for (const auto& [c, s] : cases) {
    ScriptedGroup pg(world, std::vector<double>(3, 10.0));
    const CollectiveCall call{c, {{3, 1, 0, 2}}, ReduceOp::kAvg, 1};
    const CallTiming t = time_call(pg, call, inputs, {.warmup_iters = 0, .iters = 3}).value();
    CHECK(t.bytes == s);
    CHECK(t.group_size == 4);
    CHECK(t.algbw_gbps == doctest::Approx(static_cast<double>(s) / 10e3));
  }
}

TEST_CASE("timing: errors") {
  std::mt19937_64 rng(3);
  const RankTensors inputs = world_tensors(4, DType::kF32, {4}, rng);
  ScriptedGroup pg(4, std::vector<double>(10, 1.0));
  const CollectiveCall call{Collective::kAllReduce, {{0, 1}, {2, 3}}, ReduceOp::kSum, 0};
  CHECK(time_call(pg, call, inputs, {.iters = 0}).error().kind == ErrorKind::kBadInput);
  CHECK(time_call(pg, call, inputs, {.launches_per_iter = 0}).error().kind == ErrorKind::kBadInput);
  const CollectiveCall uneven{Collective::kAllReduce, {{0, 1, 2}, {3}}, ReduceOp::kSum, 0};
  CHECK(time_call(pg, uneven, inputs).error().kind == ErrorKind::kUnsupported);
  const CollectiveCall outside{Collective::kAllReduce, {{0, 9}}, ReduceOp::kSum, 0};
  CHECK(time_call(pg, outside, inputs).error().kind == ErrorKind::kBadInput);
  pg.fail_at = 2;
  auto failed = time_call(pg, call, inputs, {.warmup_iters = 1, .iters = 3});
  CHECK(failed.error().message == "scripted failure");
  CHECK(pg.reductions == 3);  // the failing iteration still joined the world's failure check
}

TEST_CASE("timing: time_call on the local (fake) group measures real launches") {
  std::mt19937_64 rng(5);
  auto pg = LocalReplayGroup::create({.world_size = 8}).value();
  const RankTensors inputs = world_tensors(8, DType::kF32, {64, 32}, rng);
  const CollectiveCall call{Collective::kAllReduce, {{0, 1, 2, 3, 4, 5, 6, 7}}, ReduceOp::kSum, 0};
  const CallTiming t =
      time_call(*pg, call, inputs, {.warmup_iters = 1, .iters = 4, .launches_per_iter = 2}).value();
  CHECK(t.bytes == 64 * 32 * 4);
  CHECK(t.group_size == 8);
  CHECK(t.min_us <= t.median_us);
  CHECK(t.median_us <= t.max_us);
  CHECK(t.busbw_gbps == doctest::Approx(t.algbw_gbps * 1.75));
  CHECK(pg->fake().trace().size() == 10);  // (1 + 4) iterations x 2 launches, one group each
}

}  // namespace
}  // namespace dtplan::replay
