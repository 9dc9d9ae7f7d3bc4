// Pointwise ops and casts (lib/strategy/ops/pointwise.cc).

#include <doctest/doctest.h>

#include "strategy/local_shapes.h"
#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {
namespace {

// The Partial rows of an op on one mesh dim of size 2, as text.
std::vector<std::string> partial_rows(const OpStrategy& op) {
  std::vector<std::string> out;
  for (const std::string& s : formatted(op)) {
    if (s.find('P') != std::string::npos) out.push_back(s);
  }
  return out;
}

TEST_CASE("pointwise: R, one row per output dim through broadcasting, then Partial rows") {
  OpStrategy add = run_op(OpKind::kAdd, {f32({4, 8}), f32({8})}, {}, {2});
  CHECK(add.rule == Rule::kPointwise);
  CHECK_FALSE(add.is_follower());
  CHECK(formatted(add) == Texts{"R <- R; R", "S(0) <- S(0); R", "S(1) <- S(1); S(0)",
                                "P(sum) <- P(sum); P(sum)", "P(avg) <- P(avg); P(avg)",
                                "P(avg) <- P(avg); R", "P(max) <- P(max); R", "P(min) <- P(min); R",
                                "P(avg) <- R; P(avg)"});
  // A broadcast (size-1) dim is read replicated.
  OpStrategy mul = run_op(OpKind::kMul, {f32({4, 1}), f32({4, 8})}, {}, {2});
  CHECK(format_strategy(mul.strategies[2]) == "S(1) <- R; S(1)");
}

// docs/reference/strategy_selection.md §2.6
TEST_CASE("pointwise: the Partial rows of each op class") {
  const std::vector<std::int64_t> mesh = {2};
  const TensorMeta x = f32({4, 8});
  auto rows = [&](OpKind op, std::vector<TensorMeta> in, graph::Attributes attrs = {}) {
    return partial_rows(run_op(op, std::move(in), std::move(attrs), mesh));
  };
  CHECK(rows(OpKind::kMul, {x, x}) == Texts{"P(sum) <- P(sum); R", "P(sum) <- R; P(sum)",
                                            "P(avg) <- P(avg); R", "P(avg) <- R; P(avg)"});
  CHECK(rows(OpKind::kMul, {x}, {{"other", 2.0}}) == Texts{"P(sum) <- P(sum)", "P(avg) <- P(avg)"});
  CHECK(rows(OpKind::kDiv, {x, x}) == Texts{"P(sum) <- P(sum); R", "P(avg) <- P(avg); R"});
  CHECK(rows(OpKind::kDiv, {x}, {{"other", 2.0}}) == Texts{"P(sum) <- P(sum)", "P(avg) <- P(avg)"});
  CHECK(rows(OpKind::kDiv, {x, x}, {{"rounding_mode", std::string("floor")}}).empty());
  CHECK(rows(OpKind::kAdd, {x}, {{"other", 1e-5}}) ==
        Texts{"P(avg) <- P(avg)", "P(max) <- P(max)", "P(min) <- P(min)"});
  CHECK(rows(OpKind::kSub, {x, x}) == rows(OpKind::kAdd, {x, x}));
  // rsub(x, y) = y - x: sub's rows with the inputs swapped; with a scalar, c - x: avg only.
  CHECK(rows(OpKind::kRsub, {x, x}) == Texts{"P(sum) <- P(sum); P(sum)", "P(avg) <- P(avg); P(avg)",
                                             "P(avg) <- R; P(avg)", "P(max) <- R; P(max)",
                                             "P(min) <- R; P(min)", "P(avg) <- P(avg); R"});
  CHECK(rows(OpKind::kRsub, {x}, {{"other", std::int64_t{1}}}) == Texts{"P(avg) <- P(avg)"});
  CHECK(rows(OpKind::kNeg, {x}) == Texts{"P(sum) <- P(sum)", "P(avg) <- P(avg)"});
  for (OpKind op : {OpKind::kExp, OpKind::kLog, OpKind::kSqrt, OpKind::kSigmoid, OpKind::kTanh,
                    OpKind::kRelu}) {
    CHECK(rows(op, {x}) == Texts{"P(max) <- P(max)", "P(min) <- P(min)"});
  }
  for (OpKind op :
       {OpKind::kRsqrt, OpKind::kReciprocal, OpKind::kAbs, OpKind::kGelu, OpKind::kSilu}) {
    CHECK(rows(op, {x}).empty());
  }
  CHECK(rows(OpKind::kPow, {x}, {{"exponent", std::int64_t{2}}}).empty());
  CHECK(rows(OpKind::kEq, {x, x}).empty());
}

TEST_CASE("pointwise: LLaMA3 counts; mixed Partial kinds never share a list") {
  // A unary op without Partial rows on [16,8192,4096]: the 15 R/S options
  // (docs/reference/strategy_selection.md §2.12).
  OpStrategy pow =
      run_op(OpKind::kPow, {f32({16, 8192, 4096})}, {{"exponent", std::int64_t{2}}}, {8, 8});
  CHECK(pow.size() == 15);
  // The residual add: 10 rows per mesh dim, 100 combinations; S(0),S(0) is invalid and the 18
  // combinations mixing max or min with another reduce op are not placements (TensorSpec).
  OpStrategy add = run_op(OpKind::kAdd, {f32({16, 8192, 4096}), f32({16, 8192, 4096})}, {}, {8, 8});
  CHECK(add.size() == 81);
  for (const Strategy& s : add.strategies) {
    for (const Placements& p : s.outputs) CHECK(partials_compatible(p));
    for (const Placements& p : s.inputs) CHECK(partials_compatible(p));
  }
  CHECK(has_strategy(add, {"P(sum),P(avg)"}, {"P(sum),P(avg)", "P(sum),P(avg)"}));
  CHECK_FALSE(has_strategy(add, {"P(max),P(sum)"}, {"P(max),P(sum)", "R,P(sum)"}));
}

TEST_CASE("cast: one strategy per producer option, Partial included, as a follower") {
  const auto producers = pls({"R,R", "P(sum),S(0)", "S(0),R", "P(max),P(max)"});
  OpStrategy cast = run_op(OpKind::kToCopy, {TensorMeta{{4, 8}, DType::kBF16}},
                           {{"dtype", DType::kF32}}, {2, 2}, {producers});
  CHECK(cast.rule == Rule::kCast);
  CHECK(cast.follows_slot == 0);
  CHECK(cast.follower_map == std::vector<std::int32_t>{0, 1, 2, 3});
  CHECK(formatted(cast) == Texts{"R,R <- R,R", "P(sum),S(0) <- P(sum),S(0)", "S(0),R <- S(0),R",
                                 "P(max),P(max) <- P(max),P(max)"});
  // Without producer options the input is taken as a leaf (every R/S option).
  OpStrategy clone = run_op(OpKind::kClone, {f32({4, 8})}, {}, {2});
  CHECK(formatted(clone) == Texts{"R <- R", "S(0) <- S(0)", "S(1) <- S(1)"});
  // A bf16 -> f32 cast of a [2,1024,4096] piece: 16 + 32 MiB of traffic, memory-bound.
  OpStrategy big = run_op(OpKind::kDtypeCast, {TensorMeta{{16, 1024, 4096}, DType::kBF16}},
                          {{"dtype", DType::kF32}}, {8}, {pls({"S(0)"})});
  CHECK(big.strategies[0].compute_us == doctest::Approx(50331648 / (3.35e12 * 0.7) * 1e6));
}

}  // namespace
}  // namespace dtplan::strategy::testing
