#include "strategy/compute_cost.h"

#include <doctest/doctest.h>

#include "support/strategy_testing.h"

namespace dtplan::strategy {
namespace {

using core::DType;
using graph::OpKind;
using graph::TensorMeta;
using testing::find_strategy;
using testing::run_op;

TensorMeta bf16(graph::Shape s) { return {std::move(s), DType::kBF16}; }

// docs/reference/strategy_selection.md §3.1
TEST_CASE("compute cost: AutoParallel's wq forward einsum on H100") {
  // x [16,8192,4096] with batch on dp, wq^T [4096,4096] with N on tp: local [2,8192,4096] x
  // [4096,512]: 2^36 FLOPs. AutoParallel's flat 0.7 gives 99.22 us (the study: 99.3 us at 989
  // TFLOPS); h100-dgx's GEMM table gives 2^36 FLOPs 2/3 of the way from 2^34 (0.564) to 2^37
  // (0.751) in log2: 0.6887, 100.86 us.
  OpStrategy op = run_op(OpKind::kEinsum, {bf16({16, 8192, 4096}), bf16({4096, 4096})},
                         {{"equation", std::string("abk,kn->abn")}}, {8, 8});
  const int i = find_strategy(op, {"S(0),S(2)"}, {"S(0),R", "R,S(1)"});
  REQUIRE(i >= 0);
  const Strategy& s = op.strategies[static_cast<std::size_t>(i)];
  CHECK(s.local_output_shapes == std::vector<graph::Shape>{{2, 8192, 512}});
  const double eff = 0.564 + (0.751 - 0.564) * 2.0 / 3.0;
  CHECK(s.compute_us == doctest::Approx(68719476736.0 / (989.4e12 * eff) * 1e6));
  CHECK(std::abs(s.compute_us - 100.86) < 0.01);
  // All replicated: 64x the FLOPs (2^42), at the table's plateau (0.801).
  CHECK(op.strategies[0].compute_us ==
        doctest::Approx(64 * 68719476736.0 / (989.4e12 * 0.801) * 1e6));
  // K split (P(sum) output): each rank still writes the full [16,8192,4096] partial output.
  const int k = find_strategy(op, {"P(sum),R"}, {"S(2),R", "S(0),R"});
  REQUIRE(k >= 0);
  CHECK(op.strategies[static_cast<std::size_t>(k)].local_output_shapes ==
        std::vector<graph::Shape>{{16, 8192, 4096}});
}

TEST_CASE("compute cost: tiny ops are floored, views are free, memory-bound ops by traffic") {
  OpStrategy tiny = run_op(OpKind::kAdd, {bf16({4, 8}), bf16({4, 8})}, {}, {2});
  for (const Strategy& s : tiny.strategies) CHECK(s.compute_us == 7.0);
  OpStrategy view = run_op(OpKind::kPermute, {bf16({4096, 4096})},
                           {{"dims", std::vector<std::int64_t>{1, 0}}}, {8});
  for (const Strategy& s : view.strategies) CHECK(s.compute_us == 0);
  // A bf16 unary op on a local [2,1024,4096] (the study's 16 MiB read + write example; with SI
  // HBM bandwidth 3.35e12 B/s it is 14.31 us, the study divides by 3.35 x 1024^4).
  OpStrategy neg = run_op(OpKind::kNeg, {bf16({16, 1024, 4096})}, {}, {8});
  const int i = find_strategy(neg, {"S(0)"}, {"S(0)"});
  REQUIRE(i >= 0);
  CHECK(neg.strategies[static_cast<std::size_t>(i)].compute_us ==
        doctest::Approx(33554432 / (3.35e12 * 0.7) * 1e6));
  // mul(x, x) reads its input through both slots.
  OpStrategy sq = run_op(OpKind::kMul, {bf16({16, 1024, 4096}), bf16({16, 1024, 4096})}, {}, {8});
  const int j = find_strategy(sq, {"S(0)"}, {"S(0)", "S(0)"});
  REQUIRE(j >= 0);
  CHECK(sq.strategies[static_cast<std::size_t>(j)].compute_us ==
        doctest::Approx(50331648 / (3.35e12 * 0.7) * 1e6));
}

TEST_CASE("compute cost: free ops and a dtype without a peak") {
  graph::Node n;
  n.op = OpKind::kView;
  CHECK(is_free_op(n, Rule::kView));
  n.op = OpKind::kGetitem;
  CHECK(is_free_op(n, Rule::kTuple));
  n.op = OpKind::kCat;
  CHECK_FALSE(is_free_op(n, Rule::kTuple));
  CHECK(is_free_op(n, Rule::kAlias));
  CHECK_FALSE(is_free_op(n, Rule::kCast));
  // An integer matmul has FLOPs but the profile gives no i64 peak.
  auto r = testing::try_op(
      OpKind::kMm, {TensorMeta{{4, 4}, DType::kI64}, TensorMeta{{4, 4}, DType::kI64}}, {}, {2});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == core::ErrorKind::kUnsupported);
  CHECK(r.error().message.starts_with("node 'op': "));
}

TEST_CASE("compute cost: a fused op saves a share of its region-boundary savings") {
  // neg on [16,1024,4096] bf16 (32 MiB in, 32 MiB out): memory-bound, far above the floor.
  const graph::Shape shape{16, 1024, 4096};
  const graph::Node node{.name = "neg", .op = OpKind::kNeg, .outputs = {bf16(shape)}};
  const std::vector<TensorMeta> inputs{bf16(shape)};
  const std::vector<graph::Shape> local{shape};
  auto cost = [&](const graph::FusedOp& fusion) {
    return compute_cost_us(node, Rule::kPointwise, inputs, local, local, testing::h100(), {},
                           fusion)
        .value();
  };
  const double eager = cost({});
  CHECK(eager > 7.0);
  const double share = kCompiledFusionShare;
  REQUIRE(share > 0);
  REQUIRE(share <= 1);
  // Its input produced in the region: the fused kernel writes only the output, half the
  // traffic; the op saves `share` of that half.
  CHECK(cost({.region = 0, .launches = false, .internal_inputs = 1}) ==
        doctest::Approx(eager - share * eager / 2));
  CHECK(cost({.region = 0, .launches = false, .internal_outputs = 1}) ==
        doctest::Approx(eager - share * eager / 2));
  // Both inside, not the region's first op: the fused kernel moves nothing for it.
  CHECK(cost({.region = 0, .launches = false, .internal_inputs = 1, .internal_outputs = 1}) ==
        doctest::Approx(eager * (1 - share)));
  // The region's first op keeps the launch floor of the fused kernel.
  CHECK(cost({.region = 0, .launches = true, .internal_inputs = 1, .internal_outputs = 1}) ==
        doctest::Approx(eager - share * (eager - 7.0)));
  // Not in a region: eager, whatever the masks say.
  CHECK(cost({.region = -1, .launches = true, .internal_inputs = 1}) == eager);
}

}  // namespace
}  // namespace dtplan::strategy
