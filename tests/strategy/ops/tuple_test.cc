// getitem, split, cat (lib/strategy/ops/tuple.cc).

#include <doctest/doctest.h>

#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {
namespace {

TEST_CASE("getitem: an identity on the tuple element it reads; free") {
  OpStrategy op = run_op(OpKind::kGetitem, {f32({4, 8})}, {{"index", std::int64_t{1}}}, {2},
                         {pls({"S(0)", "R", "S(0)"})}, {}, {f32({4, 8})});
  CHECK(op.rule == Rule::kTuple);
  CHECK(formatted(op) == Texts{"S(0) <- S(0)", "R <- R"});
  CHECK(op.follower_map == std::vector<std::int32_t>{0, 1, 0});
  CHECK(op.strategies[0].compute_us == 0);
}

TEST_CASE("split: shards of the split dim replicated, every output the same") {
  OpStrategy op = run_op(OpKind::kSplit, {f32({8, 6})},
                         {{"split_size", std::int64_t{4}}, {"dim", std::int64_t{0}}}, {2},
                         {pls({"S(0)", "S(1)", "P(sum)"})});
  CHECK(formatted(op) == Texts{"R; R <- R", "S(1); S(1) <- S(1)", "P(sum); P(sum) <- P(sum)"});
  CHECK(op.follows_slot == 0);
  OpStrategy sizes =
      run_op(OpKind::kSplitWithSizes, {f32({8, 6})},
             {{"split_sizes", std::vector<std::int64_t>{1, 5}}, {"dim", std::int64_t{1}}}, {2},
             {pls({"S(1)", "S(0)"})});
  CHECK(formatted(sizes) == Texts{"R; R <- R", "S(0); S(0) <- S(0)"});
}

TEST_CASE("cat: every producer's options, the cat dim replicated; costs a copy") {
  OpStrategy op = run_op(OpKind::kCat, {f32({4, 6}), f32({2, 6})}, {{"dim", std::int64_t{0}}}, {2},
                         {pls({"S(0)", "S(1)"}), pls({"P(sum)", "S(1)", "R"})});
  CHECK(op.rule == Rule::kTuple);
  CHECK_FALSE(op.is_follower());
  CHECK(formatted(op) == Texts{"R <- R; R", "S(1) <- S(1); S(1)", "P(sum) <- P(sum); P(sum)"});
  CHECK(op.strategies[0].compute_us == 7.0);  // a tiny copy: the launch floor
  // A legacy empty 1-d input is read replicated.
  OpStrategy legacy = run_op(OpKind::kCat, {f32({4, 6}), f32({0})}, {{"dim", std::int64_t{0}}}, {2},
                             {pls({"S(1)"}), pls({"R"})});
  CHECK(formatted(legacy) == Texts{"S(1) <- S(1); R"});
}

}  // namespace
}  // namespace dtplan::strategy::testing
