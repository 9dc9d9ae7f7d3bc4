#include "sweep/point_runner.h"

#include <doctest/doctest.h>

#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "support/mesh_gen.h"

namespace dtplan::sweep {
namespace {

using testing::ok;

// Point i: step 10 * i, and an error for every multiple of 5; a short sleep that varies with i so
// that threads finish out of order.
core::Result<MeshEvaluation> point(std::size_t i) {
  std::this_thread::sleep_for(std::chrono::microseconds((i * 7919) % 300));
  if (i % 5 == 0) return core::Error::internal("point " + std::to_string(i) + " failed");
  MeshEvaluation e;
  e.step_time_us = 10.0 * static_cast<double>(i);
  e.compute_us = 0.1 * static_cast<double>(i);
  return e;
}

TEST_CASE("thread runner: a failed point is an outcome with its message; the others go on") {
  ThreadRunner runner;
  const auto out = ok(runner.run(12, point, {.threads = 3}));
  REQUIRE(out.size() == 12);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i % 5 == 0) {
      CHECK(out[i].error == "point " + std::to_string(i) + " failed");
    } else {
      CHECK(out[i].error.empty());
      CHECK(out[i].evaluation.step_time_us == 10.0 * static_cast<double>(i));
    }
  }
}

TEST_CASE("thread runner: identical outcomes for any thread count") {
  ThreadRunner runner;
  const auto one = ok(runner.run(40, point, {.threads = 1}));
  for (std::int32_t t : {2, 3, 4, 8, 0}) CHECK(ok(runner.run(40, point, {.threads = t})) == one);
}

TEST_CASE("thread runner: skipped points are not evaluated and stay default") {
  ThreadRunner runner;
  std::mutex m;
  std::set<std::size_t> seen;
  std::vector<std::size_t> progress;
  RunPointsOptions o;
  o.threads = 3;
  o.skip = {true, false, true, false, false, true};  // points 6.. are evaluated too
  o.on_progress = [&](const PointProgress& p) {
    CHECK(p.total == 5);
    REQUIRE(p.outcome != nullptr);
    progress.push_back(p.done);
  };
  const auto out = ok(runner.run(
      8,
      [&](std::size_t i) {
        std::lock_guard<std::mutex> lock(m);
        seen.insert(i);
        return point(i);
      },
      o));
  CHECK(seen == std::set<std::size_t>{1, 3, 4, 6, 7});
  CHECK(out[0] == PointOutcome{});
  CHECK(out[2] == PointOutcome{});
  CHECK(out[5] == PointOutcome{});
  CHECK(out[7].evaluation.step_time_us == 70);
  CHECK(progress == std::vector<std::size_t>{1, 2, 3, 4, 5});
}

TEST_CASE("thread runner: points are handed out in the given order") {
  ThreadRunner runner;
  std::vector<std::size_t> seen;
  RunPointsOptions o;
  o.threads = 1;
  o.order = {3, 1, 2, 0};
  o.skip = {false, true};
  ok(runner.run(
      4,
      [&](std::size_t i) {
        seen.push_back(i);
        return core::Result<MeshEvaluation>(MeshEvaluation{});
      },
      o));
  CHECK(seen == std::vector<std::size_t>{3, 2, 0});
  CHECK(points_to_run(4, o) == std::vector<std::size_t>{3, 2, 0});
  CHECK(runner.run(1, point, {.threads = -1}).error().kind == core::ErrorKind::kBadInput);
}

}  // namespace
}  // namespace dtplan::sweep
