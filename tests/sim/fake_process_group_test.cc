#include "sim/fake_process_group.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "support/profiles.h"
#include "support/sim_reference.h"

namespace dtplan::sim {
namespace {

using collective::Collective;
using core::DType;

FakeProcessGroup make_pg(std::int64_t world, std::int64_t gpn, OrderPolicy order, bool h100 = false,
                         DataMode mode = DataMode::kData) {
  FakeProcessGroupOptions o{world, gpn, mode, order, std::nullopt};
  if (h100) o.hardware = testing::profile("h100-dgx");
  auto pg = FakeProcessGroup::create(std::move(o));
  REQUIRE(pg.ok());
  return std::move(pg).value();
}

constexpr Collective kCollectives[] = {Collective::kAllGather, Collective::kReduceScatter,
                                       Collective::kAllReduce, Collective::kAllToAll,
                                       Collective::kBroadcast};
constexpr DType kDTypes[] = {DType::kF32, DType::kBF16, DType::kF16, DType::kF64,
                             DType::kI32, DType::kI64,  DType::kU8};
constexpr ReduceOp kOps[] = {ReduceOp::kSum, ReduceOp::kAvg, ReduceOp::kMax, ReduceOp::kMin};

TEST_CASE("fake process group: every collective matches the naive reference") {
  std::mt19937_64 rng(20240601);
  int runs = 0;
  for (int iter = 0; iter < 160; ++iter) {
    const auto world = static_cast<std::int64_t>(1 + rng() % 40);
    const auto gpn = static_cast<std::int64_t>(1 + rng() % 8);
    const auto n = static_cast<std::int64_t>(1 + rng() % static_cast<std::uint64_t>(world));
    const auto count = static_cast<std::int64_t>(1 + rng() % 4);
    const Collective c = kCollectives[rng() % 5];
    DType dtype = kDTypes[rng() % 7];
    const bool reduces = collective::facts(c).reduces;
    if (reduces && dtype == DType::kU8) dtype = DType::kI32;
    const auto policy = static_cast<OrderPolicy>(rng() % 3);
    const bool h100 = policy == OrderPolicy::kAuto && rng() % 2 == 0;
    FakeProcessGroup pg = make_pg(world, h100 ? std::min<std::int64_t>(gpn, 8) : gpn, policy, h100);
    const std::int64_t gpus = pg.options().gpus_per_node;

    CollectiveCall call{c, testing::random_groups(world, n, count, rng), kOps[rng() % 4],
                        static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n))};
    // Every rank holds a tensor; members of one group share a shape (dim 0 divisible by n).
    RankTensors tensors(world);
    for (std::int64_t r = 0; r < world; ++r)
      tensors.set(r, testing::random_tensor(dtype, {3}, rng));
    for (const Group& g : call.groups) {
      const auto rows = static_cast<std::int64_t>(rng() % 4);
      // Mostly small; a few wide ones cross the reduction engine's 8 KiB blocks.
      const auto cols = static_cast<std::int64_t>(1 + rng() % (n <= 4 ? 1500 : 48));
      const std::int64_t dim0 = c == Collective::kAllGather ? rows : rows * n;
      for (std::int64_t r : g) tensors.set(r, testing::random_tensor(dtype, {dim0, cols}, rng));
    }
    const RankTensors before = tensors;
    CAPTURE(describe(call));
    REQUIRE(pg.run(call, tensors).ok());
    REQUIRE(pg.trace().size() == call.groups.size());

    std::vector<ReductionOrder> orders;
    for (std::size_t i = 0; i < call.groups.size(); ++i) {
      const TraceEntry& e = pg.trace()[i];
      const Tensor& in = before.at(call.groups[i][0]);
      CHECK(e.call == 0);
      CHECK(e.collective == c);
      CHECK(e.ranks == call.groups[i]);
      CHECK(e.dtype == dtype);
      CHECK(e.op.has_value() == reduces);
      CHECK(e.root.has_value() == (c == Collective::kBroadcast));
      const std::int64_t rank_bytes =
          c == Collective::kReduceScatter ? in.nbytes() / n : in.nbytes();
      CHECK(e.rank_bytes == rank_bytes);
      CHECK(e.nccl_bytes == collective::nccl_size_from_rank_bytes(c, rank_bytes, n, "S").value());
      const bool trivial = n == 1 || e.nccl_bytes == 0;
      CHECK(e.order == (!reduces || trivial                     ? ReductionOrder::kNone
                        : policy == OrderPolicy::kTree          ? ReductionOrder::kTree
                        : policy == OrderPolicy::kRing || !h100 ? ReductionOrder::kRing
                                                                : reduction_order_of(e.algorithm)));
      CHECK(pg.plan_group(c, call.groups[i], e.nccl_bytes).value() ==
            GroupPlan{e.algorithm, e.order});
      orders.push_back(e.order);
    }
    const RankTensors expected = testing::reference_run(call, before, orders, gpus);
    for (std::int64_t r = 0; r < world; ++r) {
      CAPTURE(r);
      REQUIRE(tensors.at(r) == expected.at(r));
    }
    ++runs;
  }
  CHECK(runs == 160);
}

TEST_CASE("fake process group: trace entries carry bytes, algorithm and order") {
  FakeProcessGroup pg = make_pg(8, 8, OrderPolicy::kAuto);
  RankTensors t(8);
  for (std::int64_t r = 0; r < 8; ++r) t.set(r, Tensor::zeros(DType::kF32, {256}).value());
  REQUIRE(pg.all_gather({{0, 1, 2, 3}, {4, 5, 6, 7}}, t).ok());        // f32[256] -> f32[1024]
  REQUIRE(pg.reduce_scatter({{0, 1, 2, 3}}, ReduceOp::kAvg, t).ok());  // f32[1024] -> [256]
  REQUIRE(pg.all_to_all({{4, 5, 6, 7}}, t).ok());
  REQUIRE(pg.broadcast({{4, 5}}, 1, t).ok());
  REQUIRE(pg.trace().size() == 5);
  const auto& tr = pg.trace();
  using A = cost::Algorithm;
  using O = ReductionOrder;
  const std::optional<ReduceOp> no_op;
  const std::optional<std::int64_t> no_root;
  auto entry = [](std::int64_t call, Collective c, Group g, std::int64_t rank_bytes, std::int64_t s,
                  std::optional<ReduceOp> op, std::optional<std::int64_t> root, A algorithm,
                  O order) {
    return TraceEntry{call, c,  std::move(g), DType::kF32, rank_bytes,
                      s,    op, root,         algorithm,   order};
  };
  CHECK(tr[0] == entry(0, Collective::kAllGather, {0, 1, 2, 3}, 1024, 4096, no_op, no_root,
                       A::kRing, O::kNone));
  CHECK(tr[1] == entry(0, Collective::kAllGather, {4, 5, 6, 7}, 1024, 4096, no_op, no_root,
                       A::kRing, O::kNone));
  CHECK(tr[2] == entry(1, Collective::kReduceScatter, {0, 1, 2, 3}, 1024, 4096, ReduceOp::kAvg,
                       no_root, A::kRing, O::kRing));
  CHECK(tr[3] == entry(2, Collective::kAllToAll, {4, 5, 6, 7}, 4096, 4096, no_op, no_root, A::kP2p,
                       O::kNone));
  CHECK(tr[4] ==
        entry(3, Collective::kBroadcast, {4, 5}, 4096, 4096, no_op, 1, A::kRing, O::kNone));
  CHECK(describe(tr[2]) ==
        "#1 reduce_scatter(avg) f32 on [0,1,2,3]: 1024 B per rank, S 4096 B, Ring, ring order");
  pg.clear_trace();
  CHECK(pg.trace().empty());
}

TEST_CASE("fake process group: the NCCL model picks the algorithm and so the order") {
  FakeProcessGroup pg = make_pg(40, 8, OrderPolicy::kAuto, true);
  const Group ddp = {0, 5, 10, 15, 20, 25, 30, 35};  // 5 nodes, 1-2 ranks each
  // all_reduce: Tree/LL for 1 KiB, Ring beyond; on one node NVLS for 16 MiB (a tree order).
  CHECK(pg.plan_group(Collective::kAllReduce, ddp, 1024).value() ==
        GroupPlan{cost::Algorithm::kTree, ReductionOrder::kTree});
  CHECK(pg.plan_group(Collective::kAllReduce, ddp, 65536).value() ==
        GroupPlan{cost::Algorithm::kRing, ReductionOrder::kRing});
  CHECK(pg.plan_group(Collective::kAllReduce, {0, 1, 2, 3, 4}, 16 << 20).value() ==
        GroupPlan{cost::Algorithm::kNvls, ReductionOrder::kTree});
  // reduce_scatter with one GPU on each of 4 nodes at 1 MiB: PAT, which reduces around a ring.
  CHECK(pg.plan_group(Collective::kReduceScatter, {0, 8, 16, 24}, 1 << 20).value() ==
        GroupPlan{cost::Algorithm::kPat, ReductionOrder::kRing});
  CHECK(pg.plan_group(Collective::kAllGather, ddp, 1 << 20).value().order == ReductionOrder::kNone);
  CHECK(pg.plan_group(Collective::kAllReduce, {3}, 1 << 20).value() == GroupPlan{});
  CHECK(pg.plan_group(Collective::kAllReduce, ddp, 0).value() == GroupPlan{});
  // Forcing an order overrides the model for reductions.
  FakeProcessGroup tree = make_pg(40, 8, OrderPolicy::kTree, true);
  CHECK(tree.plan_group(Collective::kReduceScatter, ddp, 65536).value() ==
        GroupPlan{cost::Algorithm::kTree, ReductionOrder::kTree});
}

TEST_CASE("fake process group: cost-only mode records the same trace as data mode") {
  std::mt19937_64 rng(77);
  for (OrderPolicy policy : {OrderPolicy::kAuto, OrderPolicy::kTree}) {
    FakeProcessGroup data = make_pg(16, 4, policy, true);
    FakeProcessGroup cost = make_pg(16, 4, policy, true, DataMode::kCostOnly);
    RankTensors a(16);
    RankTensors b(16);
    for (std::int64_t r = 0; r < 16; ++r) {
      a.set(r, testing::random_tensor(DType::kBF16, {64, 3}, rng));
      b.set(r, Tensor::shape_only(DType::kBF16, {64, 3}).value());
    }
    const std::vector<Group> dim0 = {{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}};
    const std::vector<Group> dim1 = {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}};
    for (auto* store : {&a, &b}) {
      FakeProcessGroup& pg = store == &a ? data : cost;
      REQUIRE(pg.reduce_scatter(dim1, ReduceOp::kSum, *store).ok());
      REQUIRE(pg.all_reduce(dim0, ReduceOp::kAvg, *store).ok());
      REQUIRE(pg.all_to_all(dim0, *store).ok());
      REQUIRE(pg.all_gather(dim1, *store).ok());
      REQUIRE(pg.broadcast(dim0, 2, *store).ok());
    }
    CHECK(data.trace() == cost.trace());
    CHECK(data.trace().size() == 20);
    for (std::int64_t r = 0; r < 16; ++r) {
      CHECK_FALSE(b.at(r).has_data());
      CHECK(b.at(r) == a.at(r).without_data());
    }
  }
}

TEST_CASE("fake process group: errors name the input and change nothing") {
  FakeProcessGroup pg = make_pg(8, 4, OrderPolicy::kAuto);
  std::mt19937_64 rng(1);
  RankTensors t(8);
  for (std::int64_t r = 0; r < 8; ++r) t.set(r, testing::random_tensor(DType::kF32, {4}, rng));
  t.set(6, testing::random_tensor(DType::kF32, {5}, rng));
  const RankTensors before = t;
  auto message = [&](const CollectiveCall& call) {
    core::Status s = pg.run(call, t);
    REQUIRE_FALSE(s.ok());
    CHECK(t == before);  // the valid first group did not run either
    return s.error().message;
  };
  CHECK(message({Collective::kAllReduce, {{0, 1}, {2, 6}}}) ==
        "all_reduce(sum) on [[0,1],[2,6]]: group [2,6]: rank 6 has f32[5], rank 2 has f32[4]");
  CHECK(message({Collective::kReduceScatter, {{0, 1}, {2, 3, 4}}}) ==
        "reduce_scatter(sum) on [[0,1],[2,3,4]]: group [2,3,4]: rank 2: reduce_scatter over 3 "
        "ranks needs dim 0 divisible by 3, got shape [4]");
  CHECK(message({Collective::kAllGather, {{0, 9}}}) ==
        "all_gather on [[0,9]]: rank 9 of group [0,9] is outside the world of 8 ranks");
  RankTensors missing(8);
  missing.set(0, Tensor::zeros(DType::kF32, {4}).value());
  core::Status m = pg.all_gather({{0, 1}}, missing);
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().message == "all_gather on [[0,1]]: group [0,1]: rank 1 has no tensor");
  missing.set(1, Tensor::shape_only(DType::kF32, {4}).value());
  CHECK(pg.all_gather({{0, 1}}, missing).error().message ==
        "all_gather on [[0,1]]: group [0,1]: rank 1 has a shape-only tensor in data mode");
  RankTensors flags(8);
  for (std::int64_t r = 0; r < 2; ++r) flags.set(r, Tensor::zeros(DType::kBool, {4}).value());
  core::Status u = pg.all_reduce({{0, 1}}, ReduceOp::kMax, flags);
  REQUIRE_FALSE(u.ok());
  CHECK(u.error().kind == core::ErrorKind::kUnsupported);
  CHECK(pg.all_gather({{0, 1}}, flags).ok());  // data movement takes any dtype
  RankTensors small(4);
  CHECK(pg.all_gather({{0, 1}}, small).error().message ==
        "all_gather on [[0,1]]: the tensor store holds a world of 4 ranks, the process group 8");
  CHECK(pg.trace().size() == 1);  // only the successful call
}

TEST_CASE("fake process group: bad options") {
  CHECK_FALSE(FakeProcessGroup::create({.world_size = 0}).ok());
  // Beyond the limit of core/limits.h: unsupported, naming the limit.
  auto over = FakeProcessGroup::create({.world_size = kMaxFakeWorldSize + 1});
  REQUIRE_FALSE(over.ok());
  CHECK(over.error().kind == core::ErrorKind::kUnsupported);
  CHECK(over.error().message ==
        "fake process group: a world of 1048577 ranks is more than the supported maximum of "
        "1048576 (kMaxFakeWorldSize in core/limits.h)");
  CHECK_FALSE(FakeProcessGroup::create({.world_size = 8, .gpus_per_node = 0}).ok());
  auto too_many = FakeProcessGroup::create(
      {64, 16, DataMode::kData, OrderPolicy::kAuto, testing::profile("h100-dgx")});
  REQUIRE_FALSE(too_many.ok());
  CHECK(too_many.error().message ==
        "fake process group: 16 GPUs per node exceed the 8 of hardware profile 'h100-dgx'");
}

TEST_CASE("fake process group: 1024 ranks with data, and huge tensors in cost-only mode") {
  FakeProcessGroup pg = make_pg(1024, 8, OrderPolicy::kAuto, true);
  std::mt19937_64 rng(1024);
  RankTensors t(1024);
  for (std::int64_t r = 0; r < 1024; ++r) t.set(r, testing::random_tensor(DType::kI64, {96}, rng));
  const RankTensors before = t;
  // Mesh 32 x 32: all_reduce over the inner dim, then over the outer dim, then all 1024.
  std::vector<Group> inner(32);
  std::vector<Group> outer(32);
  Group all;
  for (std::int64_t r = 0; r < 1024; ++r) {
    inner[static_cast<std::size_t>(r / 32)].push_back(r);
    outer[static_cast<std::size_t>(r % 32)].push_back(r);
    all.push_back(r);
  }
  REQUIRE(pg.all_reduce(inner, ReduceOp::kSum, t).ok());
  REQUIRE(pg.all_reduce(outer, ReduceOp::kSum, t).ok());
  for (std::int64_t e = 0; e < 96; ++e) {
    std::uint64_t sum = 0;
    for (std::int64_t r = 0; r < 1024; ++r) sum += testing::element_bits(before.at(r), e);
    for (std::int64_t r = 0; r < 1024; r += 97) REQUIRE(testing::element_bits(t.at(r), e) == sum);
  }
  RankTensors f(1024);
  for (std::int64_t r = 0; r < 1024; ++r) f.set(r, testing::random_tensor(DType::kF32, {64}, rng));
  REQUIRE(pg.all_reduce({all}, ReduceOp::kSum, f).ok());
  for (std::int64_t r = 1; r < 1024; ++r) REQUIRE(f.at(r) == f.at(0));
  REQUIRE(pg.all_gather(inner, f).ok());
  CHECK(f.at(5).shape() == Shape{2048});

  FakeProcessGroup cost = make_pg(1024, 8, OrderPolicy::kAuto, true, DataMode::kCostOnly);
  RankTensors s(1024);
  for (std::int64_t r = 0; r < 1024; ++r)
    s.set(r, Tensor::shape_only(DType::kBF16, {1 << 29}).value());
  REQUIRE(cost.reduce_scatter(outer, ReduceOp::kSum, s).ok());
  REQUIRE(cost.all_gather({all}, s).ok());
  CHECK(s.at(0).shape() == Shape{std::int64_t{1} << 34});
  CHECK(cost.trace().back().nccl_bytes == std::int64_t{1} << 35);
  CHECK(cost.trace()[0].rank_bytes == std::int64_t{1} << 25);
}

}  // namespace
}  // namespace dtplan::sim
