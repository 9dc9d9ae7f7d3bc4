// Complex (c64) reductions on the fake process group: pairs of f32, sum and avg only.
#include <doctest/doctest.h>

#include <complex>
#include <vector>

#include "sim/fake_process_group.h"

namespace dtplan::sim {
namespace {

using core::DType;
using C = std::complex<float>;

Tensor complex_tensor(const std::vector<C>& values) {
  return Tensor::from_values<C>(DType::kC64, {static_cast<std::int64_t>(values.size())},
                                std::span<const C>(values))
      .value();
}

std::vector<C> complex_values(const Tensor& t) {
  REQUIRE(t.dtype() == DType::kC64);
  const auto v = t.values<C>();
  return {v.begin(), v.end()};
}

FakeProcessGroup make_pg(std::int64_t world, OrderPolicy order) {
  return FakeProcessGroup::create({.world_size = world, .gpus_per_node = 2, .order = order})
      .value();
}

TEST_CASE("fake process group: complex reduce_scatter and all_reduce reduce pairs of reals") {
  for (OrderPolicy order : {OrderPolicy::kRing, OrderPolicy::kTree, OrderPolicy::kAuto}) {
    CAPTURE(static_cast<int>(order));
    FakeProcessGroup pg = make_pg(4, order);
    RankTensors t(4);
    t.set(0, complex_tensor({{1, 2}, {3, 4}, {5, 6}, {7, 8}}));
    t.set(1, complex_tensor({{10, 20}, {30, 40}, {50, 60}, {70, 80}}));
    REQUIRE(pg.reduce_scatter({{0, 1}}, ReduceOp::kSum, t).ok());
    CHECK(t.at(0).shape() == Shape{2});
    CHECK(complex_values(t.at(0)) == std::vector<C>{{11, 22}, {33, 44}});
    CHECK(complex_values(t.at(1)) == std::vector<C>{{55, 66}, {77, 88}});

    // avg over 4 ranks: every part premultiplied by 1/4 (exact here), then summed.
    for (std::int64_t r = 0; r < 4; ++r) {
      const auto x = static_cast<float>(r);
      t.set(r, complex_tensor({{x, 2 * x}, {4 * x, -x}, {0, 1}}));
    }
    REQUIRE(pg.all_reduce({{0, 1, 2, 3}}, ReduceOp::kAvg, t).ok());
    for (std::int64_t r = 0; r < 4; ++r) {
      CHECK(complex_values(t.at(r)) == std::vector<C>{{1.5F, 3}, {6, -1.5F}, {0, 1}});
    }
    REQUIRE(pg.all_reduce({{0, 1, 2, 3}}, ReduceOp::kSum, t).ok());
    CHECK(complex_values(t.at(3)) == std::vector<C>{{6, 12}, {24, -6}, {0, 4}});
  }
}

TEST_CASE("fake process group: complex max and min are refused, nothing changed") {
  FakeProcessGroup pg = make_pg(2, OrderPolicy::kAuto);
  RankTensors t(2);
  t.set(0, complex_tensor({{1, 2}, {3, 4}}));
  t.set(1, complex_tensor({{5, 6}, {7, 8}}));
  const RankTensors before = t;
  for (ReduceOp op : {ReduceOp::kMax, ReduceOp::kMin}) {
    const core::Status s = pg.all_reduce({{0, 1}}, op, t);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().kind == core::ErrorKind::kUnsupported);
    CHECK(s.error().message == "all_reduce(" + std::string(placement::reduce_op_name(op)) +
                                   ") on [[0,1]]: dtype c64 cannot be reduced by " +
                                   std::string(placement::reduce_op_name(op)) +
                                   " (complex dtypes reduce by sum and avg only)");
  }
  CHECK(pg.reduce_scatter({{0, 1}}, ReduceOp::kMax, t).error().kind ==
        core::ErrorKind::kUnsupported);
  CHECK(t == before);
  CHECK(pg.trace().empty());
}

}  // namespace
}  // namespace dtplan::sim
