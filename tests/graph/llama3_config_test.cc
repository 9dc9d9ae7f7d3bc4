#include "graph/llama3_config.h"

#include <doctest/doctest.h>

#include "test_models.h"

namespace dtplan::graph {
namespace {

using test_models::llama3_405b;
using test_models::llama3_70b;

TEST_CASE("llama3 config: FFN sizes and parameter counts of the reference models") {
  Llama3Config c8;  // defaults: 8B
  CHECK(validate_llama3_config(c8).ok());
  // docs/reference/strategy_selection.md §5.2: F 10922 -> 14198 -> 14336; §5.3: ~8.03e9 params.
  CHECK(llama3_ffn_dim(c8) == 14336);
  CHECK(llama3_head_dim(c8) == 128);
  CHECK(llama3_param_count(c8).value() == 8030261248);
  CHECK(llama3_ffn_dim(llama3_70b()) == 28672);
  CHECK(llama3_param_count(llama3_70b()).value() == 70553706496);  // ~70.6e9
  CHECK(llama3_ffn_dim(llama3_405b()) == 53248);
  CHECK(llama3_param_count(llama3_405b()).value() == 405853388800);
  Llama3Config explicit_ffn = c8;
  explicit_ffn.ffn_dim = 100;
  CHECK(llama3_ffn_dim(explicit_ffn) == 100);
  Llama3Config no_multiplier = c8;
  no_multiplier.ffn_dim_multiplier.reset();
  CHECK(llama3_ffn_dim(no_multiplier) == 11264);  // 10922 rounded up to 1024
}

TEST_CASE("llama3 config: invalid settings name the field") {
  auto error_of = [](auto edit) {
    Llama3Config c;
    edit(c);
    auto s = validate_llama3_config(c);
    REQUIRE_FALSE(s.ok());
    return s.error();
  };
  CHECK(error_of([](Llama3Config& c) { c.n_kv_heads = 5; }).message ==
        "field 'n_kv_heads': 5 does not divide n_heads 32");
  CHECK(error_of([](Llama3Config& c) { c.n_heads = 3; }).message ==
        "field 'n_heads': 3 does not divide dim 4096");
  CHECK(error_of([](Llama3Config& c) {
          c.dim = 96;
          c.n_heads = 32;
        }).message == "field 'n_heads': head_dim 3 must be even (RoPE rotates pairs)");
  CHECK(error_of([](Llama3Config& c) { c.batch = 0; }).message ==
        "field 'batch': must be positive, got 0");
  CHECK(error_of([](Llama3Config& c) { c.max_seq_len = 100; }).message ==
        "field 'max_seq_len': 100 is below seq_len 8192");
  CHECK(error_of([](Llama3Config& c) { c.ffn_dim_multiplier = -1.0; }).message ==
        "field 'ffn_dim_multiplier': must be in (0, 1024]");
  auto many = error_of([](Llama3Config& c) { c.n_layers = 100000; });
  CHECK(many.kind == core::ErrorKind::kUnsupported);
  auto huge = error_of([](Llama3Config& c) {
    c.batch = std::int64_t{1} << 30;
    c.seq_len = std::int64_t{1} << 30;
  });
  CHECK(huge.message.find("overflows 64-bit integers") != std::string::npos);
}

TEST_CASE("llama3 config: kernel and policy names") {
  for (auto k : {AttentionKernel::kCudnn, AttentionKernel::kFlash, AttentionKernel::kEfficient}) {
    CHECK(parse_attention_kernel(attention_kernel_name(k), "a").value() == k);
  }
  CHECK_FALSE(parse_attention_kernel("math", "a").ok());
  for (auto p :
       {CheckpointPolicy::kNone, CheckpointPolicy::kSelectiveOp, CheckpointPolicy::kFull}) {
    CHECK(parse_checkpoint_policy(checkpoint_policy_name(p), "c").value() == p);
  }
  auto bad = parse_checkpoint_policy("selective", "--checkpoint");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message ==
        "--checkpoint: unknown checkpoint policy 'selective' (use none, selective_op or full)");
  for (auto s : {GradSync::kEveryMicrobatch, GradSync::kLastMicrobatch}) {
    CHECK(core::parse_grad_sync(core::grad_sync_name(s), "g").value() == s);
  }
}

TEST_CASE("llama3 config: grad_accum splits the batch into microbatches") {
  Llama3Config c;
  c.batch = 16;
  c.grad_accum = 4;
  CHECK(validate_llama3_config(c).ok());
  CHECK(llama3_microbatch(c) == 4);
  CHECK(llama3_training(c).grad_accum == 4);
  c.grad_accum = 3;
  auto v = validate_llama3_config(c);
  REQUIRE_FALSE(v.ok());
  CHECK(v.error().message == "field 'grad_accum': 3 does not divide batch 16");
  c.grad_accum = 0;
  CHECK(validate_llama3_config(c).error().message == "field 'grad_accum': must be positive, got 0");
}

}  // namespace
}  // namespace dtplan::graph
