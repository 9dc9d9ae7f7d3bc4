#include "sweep/sweep.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <mutex>

#include "support/mesh_gen.h"
#include "support/sweep_support.h"

namespace dtplan::sweep {
namespace {

using testing::error_of;
using testing::FakeEvaluator;
using testing::kGiB;
using testing::ok;
using Shapes = std::vector<std::vector<std::int64_t>>;

SweepSetup setup(std::int64_t world, std::int64_t limit = 0) {
  return {"fake", 2, "h100-dgx", world, 8, {1, 2, 3}, limit, "fake"};
}

Shapes shapes(const SweepResult& r) {
  Shapes out;
  for (const SweepRow& row : r.rows) out.push_back(row.mesh.shape);
  return out;
}

std::vector<MeshCandidate> cands(std::int64_t world, std::vector<std::int32_t> dims) {
  return testing::fsdp_tp_candidates(world, std::move(dims));
}

TEST_CASE("sweep: world 16 on 1-D and 2-D meshes, ranked by hand") {
  // (16): step 1000 + 84 = 1084, 4 GiB;  (2,8): 1000 + 168 + 5 = 1173, 32 GiB;
  // (4,4): 1000 + 96 + 5 = 1101, 16 GiB; (8,2): 1000 + 72 + 5 = 1077, 8 GiB.
  FakeEvaluator fake;
  auto r = ok(run_sweep(setup(16), cands(16, {1, 2}), fake));
  CHECK(shapes(r) == Shapes{{8, 2}, {16}, {4, 4}, {2, 8}});
  CHECK(r.rows[0].evaluation.step_time_us == 1077);
  CHECK(r.rows[0].evaluation.memory_bytes_per_rank == 8 * kGiB);
  CHECK(r.rows[1].evaluation.step_time_us == 1084);
  CHECK(r.setup == setup(16));
  CHECK(fake.calls() == 4);
  // A 6 GiB limit leaves only (16) usable; the rest follow by step time.
  auto limited = ok(run_sweep(setup(16, 6 * kGiB), cands(16, {1, 2}), fake));
  CHECK(shapes(limited) == Shapes{{16}, {8, 2}, {4, 4}, {2, 8}});
  CHECK(limited.rows[0].fits_memory);
  CHECK_FALSE(limited.rows[1].fits_memory);
}

TEST_CASE("sweep: tp within a node follows gpus_per_node") {
  FakeEvaluator fake;
  auto r = ok(run_sweep(setup(32), cands(32, {2}), fake));
  for (const SweepRow& row : r.rows) CHECK(row.tp_within_node == (row.mesh.shape.back() <= 8));
}

TEST_CASE("sweep: the same result for any thread count, whatever order threads finish in") {
  FakeEvaluator fake;
  fake.set_jitter(300);
  const auto c = cands(1024, {1, 2, 3});
  auto one = ok(run_sweep(setup(1024, 20 * kGiB), c, fake, {.threads = 1}));
  for (std::int32_t t : {2, 3, 8, 0}) {
    auto many = ok(run_sweep(setup(1024, 20 * kGiB), c, fake, {.threads = t}));
    CHECK(many == one);
  }
  CHECK(one.rows.size() == 46);
}

TEST_CASE("sweep: progress reports every candidate once, one call at a time") {
  FakeEvaluator fake;
  fake.set_jitter(100);
  const auto c = cands(64, {1, 2, 3});
  std::vector<std::size_t> done;
  std::vector<std::vector<std::int64_t>> seen;
  auto r =
      ok(run_sweep(setup(64), c, fake, {.threads = 2, .on_progress = [&](const SweepProgress& p) {
                                          done.push_back(p.done);
                                          CHECK(p.total == c.size());
                                          seen.push_back(p.last->shape);
                                        }}));
  REQUIRE(done.size() == c.size());
  for (std::size_t i = 0; i < done.size(); ++i) CHECK(done[i] == i + 1);
  std::sort(seen.begin(), seen.end());
  Shapes all;
  for (const MeshCandidate& m : c) all.push_back(m.shape);
  std::sort(all.begin(), all.end());
  CHECK(seen == all);
}

TEST_CASE("sweep: meshes of more dims are evaluated first; rows keep the candidate order") {
  FakeEvaluator fake;
  const auto c = cands(64, {1, 2, 3});
  std::vector<std::size_t> dims;
  Shapes order;
  auto r =
      ok(run_sweep(setup(64), c, fake, {.threads = 1, .on_progress = [&](const SweepProgress& p) {
                                          dims.push_back(p.last->shape.size());
                                          order.push_back(p.last->shape);
                                        }}));
  REQUIRE(dims.size() == c.size());
  CHECK(std::is_sorted(dims.rbegin(), dims.rend()));
  CHECK(dims.front() == 3);
  CHECK(dims.back() == 1);
  // Within one dim count, the candidate order (by shape).
  CHECK(order[0] == std::vector<std::int64_t>{2, 2, 16});
  CHECK(order.back() == std::vector<std::int64_t>{64});
  auto two = ok(run_sweep(setup(64), c, fake, {.threads = 2}));
  CHECK(two == r);
}

TEST_CASE("sweep: an unsupported candidate becomes an infeasible row, ranked last") {
  FakeEvaluator fake;
  fake.set({4, 4}, core::Error::unsupported("no strategy fits 4x4"));
  MeshEvaluation infeasible;
  infeasible.feasible = false;
  infeasible.note = "over every limit";
  fake.set({2, 8}, infeasible);
  auto r = ok(run_sweep(setup(16), cands(16, {1, 2}), fake, {.threads = 2}));
  CHECK(shapes(r) == Shapes{{8, 2}, {16}, {2, 8}, {4, 4}});
  CHECK_FALSE(r.rows[3].evaluation.feasible);
  CHECK(r.rows[3].evaluation.note == "no strategy fits 4x4");
  CHECK(r.rows[2].evaluation.note == "over every limit");
}

TEST_CASE("sweep: other errors become failed rows, ranked last; the others go on") {
  FakeEvaluator fake;
  fake.set_jitter(200);
  fake.set({4, 4, 4}, core::Error::bad_input("model: broken"));
  fake.set({2, 32}, core::Error::internal("solver: lost"));
  const auto candidates = cands(64, {1, 2, 3});
  const SweepResult one = ok(run_sweep(setup(64), candidates, fake, {.threads = 1}));
  REQUIRE(one.rows.size() == candidates.size());
  const std::size_t n = one.rows.size();
  CHECK(shapes(one)[n - 2] == std::vector<std::int64_t>{2, 32});
  CHECK(one.rows[n - 2].error == "solver: lost");
  CHECK(shapes(one)[n - 1] == std::vector<std::int64_t>{4, 4, 4});
  CHECK(one.rows[n - 1].error == "model: broken");
  CHECK_FALSE(one.rows[n - 1].evaluation.feasible);
  CHECK_FALSE(one.rows[n - 1].usable());
  for (std::size_t i = 0; i + 2 < n; ++i) CHECK(one.rows[i].error.empty());
  for (std::int32_t t : {2, 4})
    CHECK(ok(run_sweep(setup(64), candidates, fake, {.threads = t})) == one);
}

TEST_CASE("sweep: recorded outcomes are not evaluated again and give the same result") {
  FakeEvaluator fake;
  const auto candidates = cands(16, {1, 2});
  const SweepResult all = ok(run_sweep(setup(16), candidates, fake));
  FakeEvaluator second;
  SweepOptions o;
  o.recorded.resize(candidates.size());
  o.recorded[1] = PointOutcome{FakeEvaluator::formula(candidates[1]), ""};
  o.recorded[3] = PointOutcome{FakeEvaluator::formula(candidates[3]), ""};
  std::size_t progress = 0;
  o.on_progress = [&](const SweepProgress& p) {
    CHECK(p.total == 2);
    CHECK(p.index != 1);
    CHECK(p.index != 3);
    REQUIRE(p.outcome != nullptr);
    ++progress;
  };
  CHECK(ok(run_sweep(setup(16), candidates, second, o)) == all);
  CHECK(second.calls() == 2);
  CHECK(progress == 2);
}

TEST_CASE("sweep: evaluations that break the contract are failed rows") {
  FakeEvaluator fake;
  MeshEvaluation bad = FakeEvaluator::formula({{4, 4}, {"dp_shard", "tp"}, {}});
  bad.exposed_us = bad.communication_us + 1;
  fake.set({4, 4}, bad);
  const SweepResult r = ok(run_sweep(setup(16), cands(16, {2}), fake));
  CHECK(r.rows.back().mesh.shape == std::vector<std::int64_t>{4, 4});
  CHECK(r.rows.back().error == "evaluation: evaluator returned exposed_us above communication_us");
  CHECK(error_of(run_sweep(setup(16), cands(16, {2}), fake, {.threads = -1})) ==
        "--threads: -1 is negative (0 means one per hardware thread)");
}

TEST_CASE("sweep: thread count") {
  CHECK(sweep_threads(4, 2) == 2);
  CHECK(sweep_threads(1, 100) == 1);
  CHECK(sweep_threads(0, 100) >= 1);
  CHECK(sweep_threads(3, 0) == 1);
  CHECK(candidate_label({{2, 4, 8}, {"dp_shard", "cp", "tp"}, {}}) ==
        "mesh 2x4x8 (dp_shard,cp,tp)");
}

TEST_CASE("sweep: evaluation fields") {
  MeshEvaluation e{.step_time_us = 10, .compute_us = 6, .communication_us = 5, .exposed_us = 3};
  CHECK(e.other_us() == 1);
  e.step_time_us = 8;
  CHECK(e.other_us() == 0);
  CHECK(check_evaluation(e, "x").ok());
  e.compute_us = 9;
  CHECK(check_evaluation(e, "x").error().message ==
        "x: evaluator returned compute_us above step_time_us");
  e.memory_bytes_per_rank = -1;
  CHECK(check_evaluation(e, "x").error().message ==
        "x: evaluator returned memory_bytes_per_rank = -1");
}

}  // namespace
}  // namespace dtplan::sweep
