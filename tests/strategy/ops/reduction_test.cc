// Reductions (lib/strategy/ops/reduction.cc).

#include <doctest/doctest.h>

#include <random>

#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {
namespace {

TEST_CASE("reduction: a shard of a reduced dim becomes the op's Partial, kept dims renumber") {
  // RMSNorm's mean over the last dim, keepdim.
  OpStrategy mean =
      run_op(OpKind::kMean, {f32({4, 8})}, {{"dim", Ints{-1}}, {"keepdim", true}}, {2});
  CHECK(mean.rule == Rule::kReduction);
  CHECK(mean.follows_slot == 0);
  CHECK(formatted(mean) == Texts{"R <- R", "S(0) <- S(0)", "P(avg) <- S(1)"});
  CHECK(mean.strategies[2].local_output_shapes == std::vector<graph::Shape>{{4, 1}});
  // sum over dims 0, 1 without keepdim: dim 2 becomes dim 0.
  OpStrategy sum = run_op(OpKind::kSum, {f32({4, 8, 6})}, {{"dim", Ints{0, 1}}}, {2},
                          {pls({"S(2)", "S(0)", "S(1)"})});
  CHECK(formatted(sum) == Texts{"S(0) <- S(2)", "P(sum) <- S(0)", "P(sum) <- S(1)"});
  CHECK(sum.follower_map == std::vector<std::int32_t>{0, 1, 2});
  OpStrategy amax = run_op(OpKind::kAmax, {f32({4, 8})}, {{"dim", Ints{1}}}, {2, 2});
  CHECK(has_strategy(amax, {"S(0),P(max)"}, {"S(0),S(1)"}));
  CHECK(has_strategy(amax, {"P(max),P(max)"}, {"S(1),S(1)"}));
}

TEST_CASE("reduction: which Partial inputs pass through") {
  const auto producers = pls({"P(sum)", "P(avg)", "P(max)", "P(min)"});
  auto run = [&](OpKind op) {
    return formatted(run_op(op, {f32({4, 8})}, {{"dim", Ints{1}}}, {2}, {producers}));
  };
  CHECK(run(OpKind::kSum) == Texts{"P(sum) <- P(sum)", "P(avg) <- P(avg)", "R <- R"});
  CHECK(run(OpKind::kMean) == Texts{"P(sum) <- P(sum)", "P(avg) <- P(avg)", "R <- R"});
  CHECK(run(OpKind::kAmax) == Texts{"R <- R", "P(max) <- P(max)"});
  CHECK(run(OpKind::kAmin) == Texts{"R <- R", "P(min) <- P(min)"});
  OpStrategy sum = run_op(OpKind::kSum, {f32({4, 8})}, {{"dim", Ints{1}}}, {2}, {producers});
  CHECK(sum.follower_map == std::vector<std::int32_t>{0, 1, 2, 2});
}

TEST_CASE("reduction: mean over an unevenly sharded dim replicates it first; sum does not") {
  const auto producers = pls({"S(1)", "S(0)"});
  OpStrategy mean = run_op(OpKind::kMean, {f32({4, 5})}, {{"dim", Ints{1}}}, {2}, {producers});
  CHECK(formatted(mean) == Texts{"R <- R", "S(0) <- S(0)"});
  OpStrategy sum = run_op(OpKind::kSum, {f32({4, 5})}, {{"dim", Ints{1}}}, {2}, {producers});
  CHECK(formatted(sum) == Texts{"P(sum) <- S(1)", "S(0) <- S(0)"});
  // The decision is per option: an uneven option does not spoil the even ones after it (#462).
  OpStrategy mixed =
      run_op(OpKind::kMean, {f32({4, 6})}, {{"dim", Ints{-1}}}, {4}, {pls({"S(1)", "R"})});
  CHECK(formatted(mixed) == Texts{"R <- R"});  // 6 over 4 is uneven
  OpStrategy even = run_op(OpKind::kMean, {f32({4, 8})}, {{"dim", Ints{-1}}}, {2, 2},
                           {pls({"S(1),R", "R,S(1)"})});
  CHECK(formatted(even) == Texts{"P(avg),R <- S(1),R", "R,P(avg) <- R,S(1)"});
}

TEST_CASE("reduction: non-linear reductions replicate reduced dims and Partials (kOther)") {
  OpStrategy var = run_op(OpKind::kOther, {f32({4, 8})}, {{"dim", Ints{1}}}, {2},
                          {pls({"S(0)", "S(1)", "P(sum)"})}, {}, {f32({4})}, "aten.var.correction");
  CHECK(var.rule == Rule::kReduction);
  CHECK(formatted(var) == Texts{"S(0) <- S(0)", "R <- R"});
  CHECK(var.follower_map == std::vector<std::int32_t>{0, 1, 1});
  OpStrategy cumsum = run_op(OpKind::kOther, {f32({4, 8})}, {{"dim", std::int64_t{1}}}, {2},
                             {pls({"S(1)", "S(0)"})}, {}, {f32({4, 8})}, "aten.cumsum.default");
  CHECK(formatted(cumsum) == Texts{"R <- R", "S(0) <- S(0)"});
}

TEST_CASE("reduction: every option keeps the reduction's meaning (random shapes)") {
  std::mt19937_64 rng(77);
  for (int trial = 0; trial < 100; ++trial) {
    graph::Shape shape;
    const std::size_t rank = 1 + rng() % 3;
    for (std::size_t i = 0; i < rank; ++i)
      shape.push_back(1 + static_cast<std::int64_t>(rng() % 9));
    const std::int64_t dim = static_cast<std::int64_t>(rng() % rank);
    const bool keepdim = rng() % 2 == 0;
    const OpKind op = rng() % 2 == 0 ? OpKind::kSum : OpKind::kAmax;
    OpStrategy s = run_op(op, {f32(shape)}, {{"dim", Ints{dim}}, {"keepdim", keepdim}}, {2, 2});
    CAPTURE(graph::format_shape(shape));
    for (const Strategy& st : s.strategies) {
      for (std::size_t k = 0; k < 2; ++k) {
        const placement::Placement in = st.inputs[0][k], out = st.outputs[0][k];
        if (in.is_shard() && in.dim() == dim) {
          CHECK(out == placement::Placement::partial(op == OpKind::kSum
                                                         ? placement::ReduceOp::kSum
                                                         : placement::ReduceOp::kMax));
        } else if (in.is_shard()) {
          CHECK(out.is_shard());
          CHECK(out.dim() == (keepdim || in.dim() < dim ? in.dim() : in.dim() - 1));
        } else {
          CHECK(out == in);
        }
      }
    }
  }
}

}  // namespace
}  // namespace dtplan::strategy::testing
