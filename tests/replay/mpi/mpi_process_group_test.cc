// Runs in dtplan_mpi_tests: the MPI backend in a world of one process (the multi-process checks
// are dtplan_mpi_check under mpirun).
#include "replay/mpi/mpi_process_group.h"

#include <doctest/doctest.h>

#include <random>

#include "mpi_test_env.h"
#include "replay/backends.h"
#include "replay/timing.h"
#include "support/sim_reference.h"

namespace dtplan::replay {
namespace {

using collective::Collective;
using core::DType;
using core::ErrorKind;
using sim::Tensor;

std::unique_ptr<MpiProcessGroup> make_group() {
  return MpiProcessGroup::create(testing::mpi_env()).value();
}

TEST_CASE("mpi process group: a world of one") {
  auto pg = make_group();
  CHECK(pg->world_size() == 1);
  CHECK(pg->rank() == 0);
  CHECK(pg->held_ranks() == std::vector<std::int64_t>{0});
  CHECK(pg->backend_name() == "mpi");
  CHECK(pg->barrier().ok());
  CHECK(pg->reduce_over_world({1.5, -2}, ReduceOp::kMax).value() == std::vector<double>{1.5, -2});
  CHECK(pg->reduce_over_world({3}, ReduceOp::kAvg).value() == std::vector<double>{3});
  CHECK(mpi_backend_built());
  auto opened = open_mpi_group();
  REQUIRE(opened.ok());
  CHECK(opened.value()->backend_name() == "mpi");
}

TEST_CASE("mpi process group: every collective on one rank is the identity") {
  auto pg = make_group();
  std::mt19937_64 rng(17);
  for (DType dtype : {DType::kF32, DType::kBF16, DType::kF16, DType::kF64, DType::kI32, DType::kI64,
                      DType::kU8, DType::kC64}) {
    for (Collective c : {Collective::kAllGather, Collective::kReduceScatter, Collective::kAllReduce,
                         Collective::kAllToAll, Collective::kBroadcast}) {
      const bool reduces = collective::facts(c).reduces;
      for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kAvg, ReduceOp::kMax, ReduceOp::kMin}) {
        const sim::CollectiveCall call{c, {{0}}, op, 0};
        sim::RankTensors t(1);
        t.set(0, testing::random_tensor(dtype, {3, 5}, rng));
        const Tensor before = t.at(0);
        const core::Status s = pg->run(call, t);
        const bool complex_order = op == ReduceOp::kMax || op == ReduceOp::kMin;
        if (reduces && (dtype == DType::kU8 || (dtype == DType::kC64 && complex_order))) {
          CHECK(s.error().kind == ErrorKind::kUnsupported);
        } else {
          CHECK_MESSAGE(s.ok(), sim::describe(call));
        }
        CHECK(t.at(0) == before);
        if (!reduces) break;
      }
    }
  }
  // All those calls used one group list: one communicator split.
  CHECK(pg->split_count() == 1);
}

TEST_CASE("mpi process group: input errors, nothing changed") {
  auto pg = make_group();
  std::mt19937_64 rng(4);
  sim::RankTensors t(1);
  t.set(0, testing::random_tensor(DType::kF32, {4}, rng));
  const Tensor before = t.at(0);
  struct Case {
    sim::CollectiveCall call;
    ErrorKind kind;
    std::string message;
  };
  const Case cases[] = {
      {{Collective::kAllReduce, {{0, 1}}, ReduceOp::kSum, 0},
       ErrorKind::kBadInput,
       "all_reduce(sum) on [[0,1]]: rank 1 of group [0,1] is outside the world of 1 ranks"},
      {{Collective::kBroadcast, {{0}}, ReduceOp::kSum, 1},
       ErrorKind::kBadInput,
       "broadcast(root 1) on [[0]]: root 1 is not a group rank of [0]"},
      {{Collective::kReduce, {{0}}, ReduceOp::kSum, 0}, ErrorKind::kUnsupported, ""},
  };
  for (const Case& c : cases) {
    const core::Status s = pg->run(c.call, t);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().kind == c.kind);
    if (!c.message.empty()) CHECK(s.error().message == c.message);
    CHECK(t.at(0) == before);
  }
  sim::RankTensors wrong_world(2);
  CHECK(pg->all_reduce({{0}}, ReduceOp::kSum, wrong_world).error().message ==
        "all_reduce(sum) on [[0]]: group [0]: the tensor store holds a world of 2 ranks, the "
        "process group 1");
  sim::RankTensors missing(1);
  CHECK(pg->all_gather({{0}}, missing).error().message ==
        "all_gather on [[0]]: group [0]: rank 0 has no tensor");
  sim::RankTensors scalar(1);
  scalar.set(0, Tensor::zeros(DType::kF32, {}).value());
  CHECK(pg->reduce_scatter({{0}}, ReduceOp::kSum, scalar).error().kind == ErrorKind::kBadInput);
}

TEST_CASE("mpi process group: the timing harness over MPI") {
  auto pg = make_group();
  std::mt19937_64 rng(8);
  sim::RankTensors t(1);
  t.set(0, testing::random_tensor(DType::kBF16, {1024}, rng));
  const sim::CollectiveCall call{Collective::kAllGather, {{0}}, ReduceOp::kSum, 0};
  const CallTiming timing = time_call(*pg, call, t, {.warmup_iters = 1, .iters = 3}).value();
  CHECK(timing.group_size == 1);
  CHECK(timing.bytes == 2048);
  CHECK(timing.median_us == 0);  // one rank: the identity, nothing launched
  CHECK(timing.algbw_gbps == 0);
  CHECK(timing.busbw_gbps == 0);
}

}  // namespace
}  // namespace dtplan::replay
