#include "sim/tensor_collectives.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "sim/fake_process_group.h"
#include "sim/local_ops.h"
#include "support/sim_reference.h"

namespace dtplan::sim {
namespace {

using core::DType;

FakeProcessGroup make_pg(std::int64_t world, DataMode mode = DataMode::kData) {
  return FakeProcessGroup::create({world, 4, mode, OrderPolicy::kAuto, std::nullopt}).value();
}

// Element-wise wrapping sum of i64 tensors of one shape.
Tensor sum_of(const std::vector<const Tensor*>& ts) {
  Tensor out = Tensor::zeros(DType::kI64, ts[0]->shape()).value();
  for (const Tensor* t : ts) {
    for (std::int64_t e = 0; e < out.numel(); ++e) {
      testing::set_element_bits(out, e,
                                testing::element_bits(out, e) + testing::element_bits(*t, e));
    }
  }
  return out;
}

TEST_CASE("tensor collectives: the worked examples") {
  FakeProcessGroup pg = make_pg(2);
  RankTensors t(2);
  t.set(0, Tensor::from_values<float>({2, 1}, {0, 1}).value());
  t.set(1, Tensor::from_values<float>({2, 1}, {2, 3}).value());
  REQUIRE(all_gather_dim(pg, {{0, 1}}, t, 1).ok());
  CHECK(t.at(0) == Tensor::from_values<float>({2, 2}, {0, 2, 1, 3}).value());
  CHECK(t.at(1) == t.at(0));

  // shard_dim_alltoall, n 2: x_i = f32[2,4]; gather_dim 0, shard_dim 1 -> f32[4,2] where rank j
  // holds columns [2j, 2j+2) of x_0 stacked over those of x_1.
  RankTensors a(2);
  a.set(0, Tensor::from_values<float>({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}).value());
  a.set(1, Tensor::from_values<float>({2, 4}, {10, 11, 12, 13, 14, 15, 16, 17}).value());
  REQUIRE(shard_dim_alltoall(pg, {{0, 1}}, a, 0, 1).ok());
  CHECK(a.at(0) == Tensor::from_values<float>({4, 2}, {0, 1, 4, 5, 10, 11, 14, 15}).value());
  CHECK(a.at(1) == Tensor::from_values<float>({4, 2}, {2, 3, 6, 7, 12, 13, 16, 17}).value());

  // reduce_scatter of length 5 over 4 ranks: torch.chunk pieces of 2, 2, 1, 0.
  FakeProcessGroup pg4 = make_pg(4);
  RankTensors r(4);
  for (std::int64_t i = 0; i < 4; ++i) {
    r.set(i, Tensor::from_values<std::int64_t>({5}, {1, 2, 3, 4, 5}).value());
  }
  REQUIRE(reduce_scatter_dim(pg4, {{0, 1, 2, 3}}, ReduceOp::kSum, r, 0).ok());
  CHECK(r.at(0) == Tensor::from_values<std::int64_t>({2}, {4, 8}).value());
  CHECK(r.at(1) == Tensor::from_values<std::int64_t>({2}, {12, 16}).value());
  CHECK(r.at(2) == Tensor::from_values<std::int64_t>({1}, {20}).value());
  CHECK(r.at(3) == Tensor::from_values<std::int64_t>({0}, {}).value());
}

TEST_CASE("tensor collectives: match local concatenation, chunking and sums") {
  std::mt19937_64 rng(31);
  for (int iter = 0; iter < 200; ++iter) {
    const std::int64_t world = 12;
    const auto n = static_cast<std::int64_t>(1 + rng() % 6);
    const std::vector<Group> groups = testing::random_groups(world, n, 12 / n, rng);
    const auto rank = static_cast<std::int64_t>(1 + rng() % 3);
    const auto dim = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(rank));
    const auto other = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(rank));
    const int kind = static_cast<int>(rng() % 3);  // all_gather, reduce_scatter, all_to_all
    Shape shape;
    for (std::int64_t i = 0; i < rank; ++i) shape.push_back(static_cast<std::int64_t>(rng() % 7));
    // all_to_all's shard dim must split evenly.
    if (kind == 2) shape[static_cast<std::size_t>(dim)] = n * static_cast<std::int64_t>(rng() % 3);
    RankTensors t(world);
    for (std::int64_t r = 0; r < world; ++r)
      t.set(r, testing::random_tensor(DType::kI64, shape, rng));
    const RankTensors before = t;
    FakeProcessGroup pg = make_pg(world);
    CAPTURE(kind);
    CAPTURE(shape_string(shape));
    if (kind == 0) REQUIRE(all_gather_dim(pg, groups, t, dim).ok());
    if (kind == 1) REQUIRE(reduce_scatter_dim(pg, groups, ReduceOp::kSum, t, dim).ok());
    if (kind == 2) REQUIRE(shard_dim_alltoall(pg, groups, t, other, dim).ok());
    for (const Group& g : groups) {
      std::vector<Tensor> members;
      std::vector<const Tensor*> ptrs;
      for (std::int64_t r : g) members.push_back(before.at(r));
      for (const Tensor& m : members) ptrs.push_back(&m);
      for (std::size_t j = 0; j < g.size(); ++j) {
        if (kind == 0) CHECK(t.at(g[j]) == cat(members, dim).value());
        if (kind == 1) CHECK(t.at(g[j]) == chunk(sum_of(ptrs), dim, n).value()[j]);
        if (kind == 2) {
          std::vector<Tensor> pieces;  // piece j of every member, in group-rank order
          for (const Tensor& m : members) pieces.push_back(chunk(m, dim, n).value()[j]);
          CHECK(t.at(g[j]) == cat(pieces, other).value());
        }
      }
    }
  }
}

TEST_CASE("tensor collectives: cost-only shapes and errors") {
  FakeProcessGroup data = make_pg(4);
  FakeProcessGroup cost = make_pg(4, DataMode::kCostOnly);
  RankTensors a(4);
  RankTensors b(4);
  std::mt19937_64 rng(2);
  for (std::int64_t r = 0; r < 4; ++r) {
    a.set(r, testing::random_tensor(DType::kBF16, {3, 10}, rng));
    b.set(r, Tensor::shape_only(DType::kBF16, {3, 10}).value());
  }
  for (auto* store : {&a, &b}) {
    FakeProcessGroup& pg = store == &a ? data : cost;
    REQUIRE(reduce_scatter_dim(pg, {{0, 1, 2, 3}}, ReduceOp::kAvg, *store, 1).ok());  // 3,3,3,1
    REQUIRE(all_gather_dim(pg, {{0, 1, 2}, {3}}, *store, 0).ok());
  }
  CHECK(a.at(0).shape() == Shape{9, 3});
  CHECK(a.at(3).shape() == Shape{3, 1});
  for (std::int64_t r = 0; r < 4; ++r) CHECK(b.at(r) == a.at(r).without_data());
  CHECK(data.trace() == cost.trace());

  const RankTensors before = a;
  core::Status s = all_gather_dim(data, {{0, 2}}, a, 2);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == "all_gather on [[0,2]]: gather dim 2 is out of range for bf16[9,3]");
  // Rank 0 holds [9,3], rank 3 [3,1]: the collective fails and nothing changes.
  CHECK_FALSE(shard_dim_alltoall(data, {{0, 3}}, a, 1, 0).ok());
  CHECK(a == before);
}

}  // namespace
}  // namespace dtplan::sim
