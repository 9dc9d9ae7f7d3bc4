// Reduction orders of the fake process group: hand-computed fp32 examples where the ring and the
// tree give different bits, and the determinism problem of PyTorch #171916
// (docs/reference/placements.md §7): two sequential all-reduces over the dims of a mesh that
// straddles nodes unevenly leave bitwise-different "replicas", one all-reduce over the flattened
// group does not.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "sim/fake_process_group.h"
#include "support/profiles.h"
#include "support/sim_reference.h"

namespace dtplan::sim {
namespace {

using core::DType;

constexpr float k24 = 16777216.0f;  // 2^24: adding 1 to it is a tie that rounds back to 2^24

FakeProcessGroup make_pg(std::int64_t world, std::int64_t gpn, OrderPolicy order,
                         bool h100 = false) {
  FakeProcessGroupOptions o{world, gpn, DataMode::kData, order, std::nullopt};
  if (h100) o.hardware = testing::profile("h100-dgx");
  return FakeProcessGroup::create(std::move(o)).value();
}

// Rank r of the group holds `count` copies of values[r].
RankTensors filled(std::int64_t world, const Group& group, const std::vector<float>& values,
                   std::int64_t count) {
  RankTensors t(world);
  for (std::size_t i = 0; i < group.size(); ++i) {
    t.set(group[i], Tensor::from_values<float>(
                        {count}, std::vector<float>(static_cast<std::size_t>(count), values[i]))
                        .value());
  }
  return t;
}

std::vector<float> floats(const Tensor& t) {
  auto v = t.values<float>();
  return {v.begin(), v.end()};
}

TEST_CASE("reduction order: ring and tree give different fp32 bits (hand-computed)") {
  // Ranks 0..3 on 2-GPU nodes hold 1, 2^24, 1, -2^24; the exact sum is 2.
  const Group g = {0, 1, 2, 3};
  const std::vector<float> v = {1.0f, k24, 1.0f, -k24};
  // Ring 0,1,2,3; chunk c (element c of 4) ends at position c and starts at c+1:
  //   c0: ((x1 + x2) + x3) + x0 = ((2^24 + 1 -> 2^24) - 2^24) + 1 = 1
  //   c1: ((x2 + x3) + x0) + x1 = ((1 - 2^24) + 1) + 2^24 = 2
  //   c2: ((x3 + x0) + x1) + x2 = ((1 - 2^24) + 2^24) + 1 = 2
  //   c3: ((x0 + x1) + x2) + x3 = ((2^24 + 1 -> 2^24) + 1 -> 2^24) - 2^24 = 0
  FakeProcessGroup ring = make_pg(4, 2, OrderPolicy::kRing);
  RankTensors a = filled(4, g, v, 4);
  REQUIRE(ring.all_reduce({g}, ReduceOp::kSum, a).ok());
  for (std::int64_t r = 0; r < 4; ++r) CHECK(floats(a.at(r)) == std::vector<float>{1, 2, 2, 0});
  // Tree: nodes {0,1} and {2,3}; both trees give (x1 + x0) + (x3 + x2) = 2^24 + (1 - 2^24) = 1.
  FakeProcessGroup tree = make_pg(4, 2, OrderPolicy::kTree);
  RankTensors b = filled(4, g, v, 4);
  REQUIRE(tree.all_reduce({g}, ReduceOp::kSum, b).ok());
  for (std::int64_t r = 0; r < 4; ++r) CHECK(floats(b.at(r)) == std::vector<float>{1, 1, 1, 1});
  // reduce_scatter keeps element g at group rank g, reduced in the chunk's ring order.
  RankTensors c = filled(4, g, v, 4);
  REQUIRE(ring.reduce_scatter({g}, ReduceOp::kSum, c).ok());
  CHECK(floats(c.at(0)) == std::vector<float>{1});
  CHECK(floats(c.at(1)) == std::vector<float>{2});
  CHECK(floats(c.at(2)) == std::vector<float>{2});
  CHECK(floats(c.at(3)) == std::vector<float>{0});
}

TEST_CASE("reduction order: groups straddling nodes differently reduce differently in a tree") {
  // Groups [0,1,2] and [3,4,5] on 2-GPU nodes hold the same values 2^24, 1, 1.
  // Tree: [0,1,2] has nodes {0,1},{2}: (x1 + x0) + x2 = (2^24 + 1 -> 2^24) + 1 -> 2^24.
  //       [3,4,5] has nodes {3},{4,5}:  x0 + (x2 + x1) = 2^24 + 2 (exact).
  // Ring: both groups visit group ranks 0,1,2, so their bits agree:
  //       chunk 0 (x1 + x2) + x0 = 2^24 + 2, chunks 1 and 2 round to 2^24.
  const std::vector<Group> groups = {{0, 1, 2}, {3, 4, 5}};
  const std::vector<float> v = {k24, 1.0f, 1.0f};
  for (OrderPolicy policy : {OrderPolicy::kTree, OrderPolicy::kRing}) {
    FakeProcessGroup pg = make_pg(6, 2, policy);
    RankTensors t(6);
    for (const Group& g : groups) {
      RankTensors one = filled(6, g, v, 3);
      for (std::int64_t r : g) t.set(r, one.take(r));
    }
    REQUIRE(pg.all_reduce(groups, ReduceOp::kSum, t).ok());
    if (policy == OrderPolicy::kTree) {
      CHECK(floats(t.at(0)) == std::vector<float>{k24, k24, k24});
      CHECK(floats(t.at(3)) == std::vector<float>{k24 + 2, k24 + 2, k24 + 2});
    } else {
      CHECK(floats(t.at(0)) == std::vector<float>{k24 + 2, k24, k24});
      CHECK(t.at(3) == t.at(0));
    }
    for (const Group& g : groups) {
      for (std::int64_t r : g) CHECK(t.at(r) == t.at(g[0]));  // one reduction, identical bits
    }
  }
}

// Mesh (ddp=8, fsdp=5) on 8-GPU nodes, rank = 5 * ddp + fsdp (PyTorch #171916).
struct Mesh40 {
  std::vector<Group> fsdp;  // 8 groups of 5: {5d, ..., 5d + 4}
  std::vector<Group> ddp;   // 5 groups of 8: {f, f + 5, ..., f + 35}
  Group flat;               // the flattened ddp_fsdp group: 0..39
  Mesh40() : fsdp(8), ddp(5) {
    for (std::int64_t r = 0; r < 40; ++r) {
      fsdp[static_cast<std::size_t>(r / 5)].push_back(r);
      ddp[static_cast<std::size_t>(r % 5)].push_back(r);
      flat.push_back(r);
    }
  }
};

// The number of distinct replicas (bitwise) among the 40 ranks.
std::size_t distinct(const RankTensors& t) {
  std::set<std::vector<std::uint64_t>> seen;
  for (std::int64_t r = 0; r < 40; ++r) {
    std::vector<std::uint64_t> bits;
    for (std::int64_t e = 0; e < t.at(r).numel(); ++e)
      bits.push_back(testing::element_bits(t.at(r), e));
    seen.insert(bits);
  }
  return seen.size();
}

RankTensors gradients(DType dtype, std::int64_t numel, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  RankTensors t(40);
  for (std::int64_t r = 0; r < 40; ++r) t.set(r, testing::random_tensor(dtype, {numel}, rng));
  return t;
}

TEST_CASE("determinism (#171916): two sequential all-reduces vs one over the flattened group") {
  const Mesh40 mesh;
  struct Case {
    OrderPolicy policy;
    bool h100;
    std::int64_t bytes;  // per rank
  };
  // Forced tree order with a 16 KiB gradient, and the NCCL model at 1 KiB, where it picks
  // Tree/LL for the DDP groups (5 nodes, 1-2 ranks each).
  for (const Case& c :
       {Case{OrderPolicy::kTree, false, 16384}, Case{OrderPolicy::kAuto, true, 1024}}) {
    for (DType dtype : {DType::kF32, DType::kBF16}) {
      const std::int64_t numel = c.bytes / core::dtype_bytes(dtype);
      CAPTURE(core::dtype_name(dtype));
      CAPTURE(c.bytes);
      FakeProcessGroup pg = make_pg(40, 8, c.policy, c.h100);
      RankTensors two = gradients(dtype, numel, 171916);
      RankTensors one = two;
      REQUIRE(pg.all_reduce(mesh.fsdp, ReduceOp::kSum, two).ok());
      REQUIRE(pg.all_reduce(mesh.ddp, ReduceOp::kSum, two).ok());
      for (std::size_t i = 8; i < 13; ++i) CHECK(pg.trace()[i].order == ReductionOrder::kTree);
      // Each DDP group agrees internally, but the five groups reduce in different orders.
      for (const Group& g : mesh.ddp) {
        for (std::int64_t r : g) CHECK(two.at(r) == two.at(g[0]));
      }
      CHECK(distinct(two) > 1);
      // The replicas differ in the last bits only: each is close to the exact sum.
      for (std::int64_t r = 0; r < 40; r += 13) {
        for (std::int64_t e = 0; e < numel; ++e) {
          double exact = 0;
          for (std::int64_t q = 0; q < 40; ++q) {
            exact += testing::ref_widen(dtype, testing::element_bits(one.at(q), e));
          }
          const double got = testing::ref_widen(dtype, testing::element_bits(two.at(r), e));
          REQUIRE(std::fabs(got - exact) <= (dtype == DType::kF32 ? 1e-4 : 0.5) * 40 * 16384);
        }
      }
      REQUIRE(pg.all_reduce({mesh.flat}, ReduceOp::kSum, one).ok());
      CHECK(distinct(one) == 1);
    }
  }
}

TEST_CASE("determinism: in the ring order every DDP group of this mesh sums alike") {
  // A documented limit of the ring model: the DDP groups' rings all visit the ddp coordinates
  // 0..7 in order (rank f + 5d grows with d, and nodes follow ranks), and a ring's summation
  // order depends only on the ring sequence, so the replicas agree here. Real NCCL can still
  // differ through per-channel rings and chunking, which dtplan does not model.
  const Mesh40 mesh;
  FakeProcessGroup pg = make_pg(40, 8, OrderPolicy::kRing);
  RankTensors two = gradients(DType::kF32, 4096, 5);
  REQUIRE(pg.all_reduce(mesh.fsdp, ReduceOp::kSum, two).ok());
  REQUIRE(pg.all_reduce(mesh.ddp, ReduceOp::kSum, two).ok());
  CHECK(distinct(two) == 1);
}

}  // namespace
}  // namespace dtplan::sim
