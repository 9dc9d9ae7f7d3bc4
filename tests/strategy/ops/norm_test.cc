// Fused RMS norm and native layer norm (lib/strategy/ops/norm.cc).

#include <doctest/doctest.h>

#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {
namespace {

TEST_CASE("fused rms norm: normalized dims and Partials replicated, weight R") {
  const graph::Attributes attrs{{"normalized_shape", Ints{8}}};
  OpStrategy fwd = run_op(OpKind::kFusedRmsNorm, {f32({4, 6, 8}), f32({8})}, attrs, {2},
                          {pls({"R", "S(0)", "S(2)", "P(sum)", "S(1)"})});
  CHECK(fwd.rule == Rule::kNorm);
  CHECK(fwd.follows_slot == 0);
  CHECK(formatted(fwd) == Texts{"R; R <- R; R", "S(0); S(0) <- S(0); R", "S(1); S(1) <- S(1); R"});
  CHECK(fwd.follower_map == std::vector<std::int32_t>{0, 1, 0, 0, 2});
  CHECK(fwd.strategies[1].local_output_shapes == std::vector<graph::Shape>{{2, 6, 8}, {2, 6, 1}});
  // Backward (grad, x, rstd, weight) -> (grad_input, grad_weight): the weight gradient is a
  // partial sum wherever the outer dims are sharded.
  OpStrategy bwd = run_op(OpKind::kFusedRmsNormBackward,
                          {f32({4, 6, 8}), f32({4, 6, 8}), f32({4, 6, 1}), f32({8})}, attrs, {2, 2},
                          {{}, pls({"S(0),S(1)", "R,S(2)"})}, {}, {f32({4, 6, 8}), f32({8})});
  CHECK(bwd.follows_slot == 1);
  CHECK(formatted(bwd) == Texts{"S(0),S(1); P(sum),P(sum) <- S(0),S(1); S(0),S(1); S(0),S(1); R,R",
                                "R,R; R,R <- R,R; R,R; R,R; R,R"});
}

TEST_CASE("native layer norm (kOther): three outputs forward, weight and bias grads backward") {
  const graph::Attributes attrs{{"normalized_shape", Ints{8}}};
  OpStrategy fwd =
      run_op(OpKind::kOther, {f32({4, 8}), f32({8}), f32({8})}, attrs, {2}, {pls({"S(0)", "S(1)"})},
             {}, {f32({4, 8}), f32({4, 1}), f32({4, 1})}, "aten.native_layer_norm.default");
  CHECK(fwd.rule == Rule::kNorm);
  CHECK(formatted(fwd) == Texts{"S(0); S(0); S(0) <- S(0); R; R", "R; R; R <- R; R; R"});
  OpStrategy bwd = run_op(OpKind::kOther,
                          {f32({4, 8}), f32({4, 8}), f32({4, 1}), f32({4, 1}), f32({8}), f32({8})},
                          attrs, {2}, {{}, pls({"S(0)"})}, {}, {f32({4, 8}), f32({8}), f32({8})},
                          "aten.native_layer_norm_backward.default");
  CHECK(formatted(bwd) == Texts{"S(0); P(sum); P(sum) <- S(0); S(0); S(0); S(0); R; R"});
}

}  // namespace
}  // namespace dtplan::strategy::testing
