// _softmax and its backward (lib/strategy/ops/softmax.cc).

#include <doctest/doctest.h>

#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {
namespace {

TEST_CASE("softmax: shards of the softmax dim and Partials are replicated") {
  OpStrategy op = run_op(OpKind::kSoftmax, {f32({4, 8})}, {{"dim", std::int64_t{-1}}}, {2, 2},
                         {pls({"R,R", "S(0),S(1)", "S(1),S(0)", "P(sum),S(0)", "S(0),R"})});
  CHECK(op.rule == Rule::kSoftmax);
  CHECK(op.follows_slot == 0);
  CHECK(formatted(op) == Texts{"R,R <- R,R", "S(0),R <- S(0),R", "R,S(0) <- R,S(0)"});
  CHECK(op.follower_map == std::vector<std::int32_t>{0, 1, 2, 2, 1});
}

TEST_CASE("softmax backward: the union of both producers' options, not a follower") {
  OpStrategy op =
      run_op(OpKind::kSoftmaxBackward, {f32({4, 8}), f32({4, 8})}, {{"dim", std::int64_t{1}}}, {2},
             {pls({"S(0)", "P(sum)"}), pls({"S(1)", "R", "S(0)"})});
  CHECK(op.rule == Rule::kSoftmax);
  CHECK_FALSE(op.is_follower());
  CHECK(formatted(op) == Texts{"S(0) <- S(0); S(0)", "R <- R; R"});
}

TEST_CASE("softmax: a bad dim is bad input") {
  auto r = try_op(OpKind::kSoftmax, {f32({4, 8})}, {{"dim", std::int64_t{2}}}, {2}, {}, {},
                  {f32({4, 8})});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.starts_with("node 'op': field 'attrs'.'dim': dimension 2"));
}

}  // namespace
}  // namespace dtplan::strategy::testing
