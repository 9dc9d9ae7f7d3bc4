// embedding and embedding_dense_backward (lib/strategy/ops/embedding.cc).

#include <doctest/doctest.h>

#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {
namespace {

// docs/reference/strategy_selection.md §2.9
TEST_CASE("embedding: R, colwise, vocab-parallel masked partial, batch rows") {
  OpStrategy op =
      run_op(OpKind::kEmbedding,
             {TensorMeta{{8, 4}, DType::kBF16}, TensorMeta{{2, 3}, DType::kI64}}, {}, {2});
  CHECK(op.rule == Rule::kEmbedding);
  CHECK(formatted(op) == Texts{"R <- R; R", "S(2) <- S(1); R", "P(sum)* <- S(0); R",
                               "S(0) <- R; S(0)", "S(1) <- R; S(1)"});
  CHECK(op.strategies[2].masked_partial == 1U);
  CHECK(op.strategies[1].masked_partial == 0U);
}

TEST_CASE("embedding: LLaMA3-8B tokens into the vocab on 8x8: 24 strategies") {
  OpStrategy op = run_op(
      OpKind::kEmbedding,
      {TensorMeta{{128256, 4096}, DType::kBF16}, TensorMeta{{16, 8192}, DType::kI64}}, {}, {8, 8});
  CHECK(op.size() == 24);  // 5 rows; batch twice (16 -> 2 < 8) is invalid
  // Vocab parallel on tp with batch on dp: the mask flag sits on mesh dim 1 only.
  const int i = find_strategy(op, {"S(0),P(sum)"}, {"R,S(0)", "S(0),R"});
  REQUIRE(i >= 0);
  CHECK(op.strategies[static_cast<std::size_t>(i)].masked_partial == 2U);
  CHECK(format_strategy(op.strategies[static_cast<std::size_t>(i)]) ==
        "S(0),P(sum)* <- R,S(0); S(0),R");
  // Vocab parallel on both mesh dims: 128256 -> 16032 -> 2004 rows.
  const int both = find_strategy(op, {"P(sum),P(sum)"}, {"S(0),S(0)", "R,R"});
  REQUIRE(both >= 0);
  CHECK(op.strategies[static_cast<std::size_t>(both)].masked_partial == 3U);
}

TEST_CASE("embedding_dense_backward: R, colwise, batch to Partial, partial grad") {
  OpStrategy op = run_op(OpKind::kEmbeddingDenseBackward,
                         {TensorMeta{{2, 3, 4}, DType::kBF16}, TensorMeta{{2, 3}, DType::kI64}},
                         {{"num_weights", std::int64_t{8}}}, {2});
  CHECK(formatted(op) == Texts{"R <- R; R", "S(1) <- S(2); R", "P(sum) <- S(0); S(0)",
                               "P(sum) <- S(1); S(1)", "P(sum) <- P(sum); R"});
  for (const Strategy& s : op.strategies) CHECK(s.masked_partial == 0U);
}

}  // namespace
}  // namespace dtplan::strategy::testing
