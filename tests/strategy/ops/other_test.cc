// kOther targets (lib/strategy/ops/other.cc).

#include <doctest/doctest.h>

#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {
namespace {

graph::Node target_node(std::string target) {
  graph::Node n;
  n.op = OpKind::kOther;
  n.target = std::move(target);
  return n;
}

TEST_CASE("other: unknown aten ops run replicated (AutoParallel's last resort)") {
  OpStrategy op = run_op(OpKind::kOther, {f32({4, 8}), f32({8})}, {}, {2, 2}, {}, {}, {f32({4, 8})},
                         "aten.index_put.default");
  CHECK(op.rule == Rule::kReplicate);
  CHECK(formatted(op) == Texts{"R,R <- R,R; R,R"});
  CHECK(op.strategies[0].compute_us == 7.0);
}

TEST_CASE("other: an op without tensor outputs is a sink reading replicated inputs") {
  OpStrategy op =
      run_op(OpKind::kOther, {f32({4, 8})}, {}, {2}, {}, {}, {}, "aten._assert_async.msg");
  REQUIRE(op.size() == 1);
  CHECK(op.strategies[0].outputs.empty());
  CHECK(format_strategy(op.strategies[0]) == " <- R");
}

TEST_CASE("other: targets with rules, by base name") {
  CHECK(rule_for(target_node("aten.native_layer_norm.default")) == Rule::kNorm);
  CHECK(rule_for(target_node("native_layer_norm_backward")) == Rule::kNorm);
  CHECK(rule_for(target_node("aten.var_mean.correction")) == Rule::kReduction);
  CHECK(rule_for(target_node("aten.iota.default")) == Rule::kFactory);
  CHECK(rule_for(target_node("aten.scalar_tensor.default")) == Rule::kFactory);
  CHECK(rule_for(target_node("aten.index_put.default")) == Rule::kReplicate);
  OpStrategy iota = run_op(OpKind::kOther, {}, {}, {2}, {}, {}, {TensorMeta{{8}, DType::kI64}},
                           "aten.iota.default");
  CHECK(formatted(iota) == Texts{"R <-"});
}

}  // namespace
}  // namespace dtplan::strategy::testing
