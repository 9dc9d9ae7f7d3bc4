// Scaled dot-product attention (lib/strategy/ops/attention.cc).

#include <doctest/doctest.h>

#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {
namespace {

const graph::Attributes kCausal{{"is_causal", true}};

std::vector<TensorMeta> forward_outputs(std::int64_t b, std::int64_t h, std::int64_t s,
                                        std::int64_t d) {
  return {bf16({b, h, s, d}), TensorMeta{{b, h, s}, DType::kF32}, TensorMeta{{}, DType::kI64},
          TensorMeta{{}, DType::kI64}};
}

TEST_CASE("sdpa: R, heads, batch per mesh dim; 7 strategies for LLaMA3-8B on 8x8") {
  const TensorMeta q = bf16({16, 32, 8192, 128});
  OpStrategy op = run_op(OpKind::kSdpaCudnn, {q, q, q}, kCausal, {8, 8}, {}, {},
                         forward_outputs(16, 32, 8192, 128));
  CHECK(op.rule == Rule::kAttention);
  REQUIRE(op.size() == 7);
  CHECK(format_strategy(op.strategies[0]) == "R,R; R,R; R,R; R,R <- R,R; R,R; R,R");
  CHECK(format_strategy(op.strategies[1]) == "R,S(1); R,S(1); R,R; R,R <- R,S(1); R,S(1); R,S(1)");
  // Heads on dp and batch on tp, and back; S(0),S(0) and S(1),S(1) are invalid.
  CHECK(has_strategy(op, {"S(1),S(0)", "S(1),S(0)", "R,R", "R,R"},
                     {"S(1),S(0)", "S(1),S(0)", "S(1),S(0)"}));
  CHECK_FALSE(has_strategy(op, {"S(1),S(1)", "S(1),S(1)", "R,R", "R,R"},
                           {"S(1),S(1)", "S(1),S(1)", "S(1),S(1)"}));
  // Batch on dp, heads on tp leaves [2,4,8192,128]. h100-dgx has an attention table (cuDNN), so
  // the causal pairs the kernel computes are priced: 2 x 2 x 4 x (8192 x 8193 / 2) x 256 FLOPs at
  // the table's 0.535 (8k keys); compute-bound.
  const int i = find_strategy(op, {"S(0),S(1)", "S(0),S(1)", "R,R", "R,R"},
                              {"S(0),S(1)", "S(0),S(1)", "S(0),S(1)"});
  REQUIRE(i >= 0);
  const double flops = 2.0 * 2 * 4 * (8192.0 * 8193.0 / 2) * 256;
  CHECK(op.strategies[static_cast<std::size_t>(i)].compute_us ==
        doctest::Approx(flops / (989.4e12 * 0.535) * 1e6));
  // With a table, causal_attention_flops changes nothing (the causal pairs are already priced).
  EnumerateOptions causal;
  causal.causal_attention_flops = true;
  OpStrategy c = run_op(OpKind::kSdpaCudnn, {q, q, q}, kCausal, {8, 8}, {}, causal,
                        forward_outputs(16, 32, 8192, 128));
  CHECK(c.strategies[static_cast<std::size_t>(i)].compute_us ==
        op.strategies[static_cast<std::size_t>(i)].compute_us);
}

TEST_CASE("sdpa backward: the same rows over (grad, q, k, v, out, lse, seed, offset)") {
  const TensorMeta q = bf16({16, 32, 8192, 128});
  const TensorMeta lse{{16, 32, 8192}, DType::kF32}, scalar{{}, DType::kI64};
  OpStrategy op = run_op(OpKind::kSdpaCudnnBackward, {q, q, q, q, q, lse, scalar, scalar}, kCausal,
                         {8, 8}, {}, {}, {q, q, q});
  CHECK(op.size() == 7);
  CHECK(format_strategy(op.strategies[1]) ==
        "R,S(1); R,S(1); R,S(1) <- R,S(1); R,S(1); R,S(1); R,S(1); R,S(1); R,S(1); R,R; R,R");
  // All replicated: 2 x b x h x pairs x (3d + 2dv) FLOPs, 2.5x the forward, on the causal pairs
  // at the cuDNN backward table's 0.524 (8k keys).
  const double flops = 2.0 * 16 * 32 * (8192.0 * 8193 / 2) * (5 * 128);
  CHECK(op.strategies[0].compute_us == doctest::Approx(flops / (989.4e12 * 0.524) * 1e6));
}

TEST_CASE("sdpa: grouped-query heads must split evenly for q and k/v alike") {
  // q has 6 heads, k/v 3: a 2-way heads split would pair q heads 0-2 with k/v heads 0-1.
  OpStrategy gqa =
      run_op(OpKind::kSdpaFlash, {bf16({2, 6, 8, 4}), bf16({2, 3, 8, 4}), bf16({2, 3, 8, 4})},
             kCausal, {2}, {}, {}, forward_outputs(2, 6, 8, 4));
  CHECK(formatted(gqa) == Texts{"R; R; R; R <- R; R; R", "S(0); S(0); R; R <- S(0); S(0); S(0)"});
  OpStrategy even =
      run_op(OpKind::kSdpaFlash, {bf16({2, 6, 8, 4}), bf16({2, 2, 8, 4}), bf16({2, 2, 8, 4})},
             kCausal, {2}, {}, {}, forward_outputs(2, 6, 8, 4));
  CHECK(even.size() == 3);
}

TEST_CASE("sdpa: a broadcast attention bias dim is read replicated") {
  OpStrategy op =
      run_op(OpKind::kSdpaEfficient,
             {bf16({2, 4, 8, 4}), bf16({2, 4, 8, 4}), bf16({2, 4, 8, 4}), bf16({2, 1, 8, 8})}, {},
             {2}, {}, {}, forward_outputs(2, 4, 8, 4));
  CHECK(format_strategy(op.strategies[1]) == "S(1); S(1); R; R <- S(1); S(1); S(1); R");
  CHECK(format_strategy(op.strategies[2]) == "S(0); S(0); R; R <- S(0); S(0); S(0); S(0)");
}

TEST_CASE("sdpa: the sequence row (ring attention) on context-parallel mesh dims only") {
  const TensorMeta q = bf16({16, 32, 8192, 128});
  EnumerateOptions cp;
  cp.context_parallel_dims = {1};  // dp_shard x cp
  OpStrategy op = run_op(OpKind::kSdpaCudnn, {q, q, q}, kCausal, {8, 8}, {}, cp,
                         forward_outputs(16, 32, 8192, 128));
  // Mesh dim 0: R, heads, batch; mesh dim 1 also the sequence: 12, less the two invalid.
  CHECK(op.size() == 10);
  CHECK_FALSE(has_strategy(op, {"S(2),R", "S(2),R", "R,R", "R,R"},
                           {"S(2),R", "R,R", "R,R"}));  // never on mesh dim 0
  const int i = find_strategy(op, {"S(0),S(2)", "S(0),S(2)", "R,R", "R,R"},
                              {"S(0),S(2)", "S(0),R", "S(0),R"});
  REQUIRE(i >= 0);
  // Local q [2,32,1024,128] against all 8192 keys: head-tail balancing gives each rank 1/8 of the
  // causal pairs, 8192 x 8193 / 2 / 8 per (batch, head), at cuDNN's 0.535 (8k keys); not the
  // 1024 x 1025 / 2 triangle of its own rows.
  const double flops = 2.0 * 2 * 32 * (8192.0 * 8193.0 / 2) / 8 * 256;
  CHECK(op.strategies[static_cast<std::size_t>(i)].compute_us ==
        doctest::Approx(flops / (989.4e12 * 0.535) * 1e6));
  // 1/8 of the batch-only strategy's work (the same pairs over 8 ranks).
  const int batch = find_strategy(op, {"S(0),S(0)", "S(0),S(0)", "R,R", "R,R"},
                                  {"S(0),S(0)", "S(0),S(0)", "S(0),S(0)"});
  CHECK(batch < 0);  // 16 sequences over 64 ranks: invalid
  // Without context-parallel dims the list is the one above (7), unchanged.
  CHECK(run_op(OpKind::kSdpaCudnn, {q, q, q}, kCausal, {8, 8}, {}, {},
               forward_outputs(16, 32, 8192, 128))
            .size() == 7);
}

TEST_CASE("sdpa backward: the sequence row gathers k, v and leaves dk, dv partial") {
  const TensorMeta q = bf16({16, 32, 8192, 128});
  const TensorMeta lse{{16, 32, 8192}, DType::kF32}, scalar{{}, DType::kI64};
  EnumerateOptions cp;
  cp.context_parallel_dims = {1};
  OpStrategy op = run_op(OpKind::kSdpaCudnnBackward, {q, q, q, q, q, lse, scalar, scalar}, kCausal,
                         {8, 8}, {}, cp, {q, q, q});
  const int i = find_strategy(
      op, {"S(0),S(2)", "S(0),P(sum)", "S(0),P(sum)"},
      {"S(0),S(2)", "S(0),S(2)", "S(0),R", "S(0),R", "S(0),S(2)", "S(0),S(2)", "R,R", "R,R"});
  REQUIRE(i >= 0);
  // 1/8 of the causal backward of [2,32,8192,128] at the backward table's 0.524.
  const double flops = 2.0 * 2 * 32 * (8192.0 * 8193 / 2) / 8 * (5 * 128);
  CHECK(op.strategies[static_cast<std::size_t>(i)].compute_us ==
        doctest::Approx(flops / (989.4e12 * 0.524) * 1e6));
}

}  // namespace
}  // namespace dtplan::strategy::testing
