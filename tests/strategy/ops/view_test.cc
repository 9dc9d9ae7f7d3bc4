// View-like ops (lib/strategy/ops/view.cc).

#include <doctest/doctest.h>

#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {
namespace {

Texts view_of(OpKind op, graph::Shape in, graph::Attributes attrs, std::vector<std::int64_t> mesh,
              const Texts& producers, std::vector<TensorMeta> outputs = {}) {
  OpStrategy s = run_op(op, {f32(std::move(in))}, std::move(attrs), std::move(mesh),
                        {pls(producers)}, {}, std::move(outputs));
  CHECK(s.rule == Rule::kView);
  CHECK(s.follows_slot == 0);
  for (const Strategy& st : s.strategies) CHECK(st.compute_us == 0);
  return formatted(s);
}

TEST_CASE("view: one strategy per producer option, Partial included; flatten gives _S") {
  CHECK(view_of(OpKind::kView, {4, 6}, {{"size", Ints{24}}}, {2, 3},
                {"R,R", "S(0),S(1)", "P(sum),R", "S(1),R"}) ==
        Texts{"R,R <- R,R", "S(0),_S(0,2) <- S(0),S(1)", "P(sum),R <- P(sum),R",
              "_S(0,4),R <- S(1),R"});
  // reshape and _unsafe_view follow the same rule.
  CHECK(view_of(OpKind::kReshape, {4, 6}, {{"size", Ints{24}}}, {2}, {"S(1)"}) ==
        Texts{"_S(0,4) <- S(1)"});
  CHECK(view_of(OpKind::kUnsafeView, {4, 6}, {{"size", Ints{24}}}, {2}, {"S(1)"}) ==
        Texts{"_S(0,4) <- S(1)"});
  // view(dtype=...) never shards the reinterpreted last dim.
  CHECK(view_of(OpKind::kView, {4, 6}, {{"dtype", DType::kI32}}, {2}, {"S(1)", "S(0)"},
                {TensorMeta{{4, 6}, DType::kI32}}) == Texts{"R <- R", "S(0) <- S(0)"});
}

TEST_CASE("view: the follower map merges options that land on one strategy") {
  // [16,8192,4096] -> [16,8192,32,128]: S(2),S(2) becomes S(2),R
  // (docs/reference/strategy_selection.md §2.12: 23 from 24).
  OpStrategy s = run_op(OpKind::kView, {f32({16, 8192, 4096})}, {{"size", Ints{16, 8192, 32, 128}}},
                        {8, 8}, {pls({"S(2),R", "S(2),S(2)", "R,R"})});
  CHECK(formatted(s) == Texts{"S(2),R <- S(2),R", "R,R <- R,R"});
  CHECK(s.follower_map == std::vector<std::int32_t>{0, 0, 1});
}

TEST_CASE("permute, transpose, t: shards follow their dim") {
  CHECK(view_of(OpKind::kPermute, {2, 4, 6}, {{"dims", Ints{0, 2, 1}}}, {2},
                {"S(1)", "S(2)", "_S(1,2)"}) ==
        Texts{"S(2) <- S(1)", "S(1) <- S(2)", "_S(2,2) <- _S(1,2)"});
  CHECK(view_of(OpKind::kTranspose, {2, 4, 6},
                {{"dim0", std::int64_t{0}}, {"dim1", std::int64_t{-1}}}, {2},
                {"S(0)", "S(1)"}) == Texts{"S(2) <- S(0)", "S(1) <- S(1)"});
  CHECK(view_of(OpKind::kT, {4, 6}, {}, {2}, {"S(0)"}) == Texts{"S(1) <- S(0)"});
}

TEST_CASE("expand, squeeze, unsqueeze, slice, select: renumbering and what must be R") {
  // expand [4,1] -> [3,4,6]: dim 0 moves to 1, the expanded dim is R.
  CHECK(view_of(OpKind::kExpand, {4, 1}, {{"size", Ints{3, 4, 6}}}, {1}, {"S(0)", "S(1)"}) ==
        Texts{"S(1) <- S(0)", "R <- R"});
  CHECK(view_of(OpKind::kSqueeze, {4, 1, 6}, {{"dim", std::int64_t{1}}}, {1}, {"S(2)", "S(1)"}) ==
        Texts{"S(1) <- S(2)", "R <- R"});
  CHECK(view_of(OpKind::kUnsqueeze, {4, 6}, {{"dim", std::int64_t{1}}}, {2}, {"S(0)", "S(1)"}) ==
        Texts{"S(0) <- S(0)", "S(2) <- S(1)"});
  // A slice keeps a shard of its dim only when it keeps the whole dim.
  CHECK(view_of(OpKind::kSlice, {8, 6},
                {{"dim", std::int64_t{0}}, {"start", std::int64_t{0}}, {"end", std::int64_t{4}}},
                {2}, {"S(0)", "S(1)"}) == Texts{"R <- R", "S(1) <- S(1)"});
  CHECK(view_of(OpKind::kSlice, {8, 6},
                {{"dim", std::int64_t{0}}, {"start", std::int64_t{0}}, {"end", std::int64_t{99}}},
                {2}, {"S(0)"}) == Texts{"S(0) <- S(0)"});
  CHECK(view_of(OpKind::kSelect, {8, 6, 4}, {{"dim", std::int64_t{1}}, {"index", std::int64_t{2}}},
                {2},
                {"S(1)", "S(2)", "P(sum)"}) == Texts{"R <- R", "S(1) <- S(2)", "P(sum) <- P(sum)"});
}

TEST_CASE("view_as_complex / view_as_real / _conj: the complex pair dim is never sharded") {
  CHECK(view_of(OpKind::kViewAsComplex, {4, 8, 2}, {}, {2}, {"S(2)", "S(1)"}) ==
        Texts{"R <- R", "S(1) <- S(1)"});
  OpStrategy real = run_op(OpKind::kViewAsReal, {TensorMeta{{4, 8}, DType::kC64}}, {}, {2},
                           {pls({"S(1)", "P(sum)"})});
  CHECK(formatted(real) == Texts{"S(1) <- S(1)", "P(sum) <- P(sum)"});
  OpStrategy conj =
      run_op(OpKind::kConj, {TensorMeta{{4, 8}, DType::kC64}}, {}, {2}, {pls({"S(0)"})});
  CHECK(formatted(conj) == Texts{"S(0) <- S(0)"});
}

}  // namespace
}  // namespace dtplan::strategy::testing
