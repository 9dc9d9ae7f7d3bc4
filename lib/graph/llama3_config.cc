#include "graph/llama3_config.h"

#include <array>
#include <cmath>
#include <utility>

#include "core/checked.h"

namespace dtplan::graph {
namespace {

using core::Error;
using core::Result;
using core::Status;

Error field_error(std::string_view field, const std::string& message) {
  return Error::bad_input("field '" + std::string(field) + "': " + message);
}

Status positive(std::string_view field, std::int64_t value) {
  if (value <= 0) return field_error(field, "must be positive, got " + std::to_string(value));
  return {};
}

}  // namespace

std::int64_t llama3_ffn_dim(const Llama3Config& c) {
  if (c.ffn_dim) return *c.ffn_dim;
  // Python: hidden = int(2 * (4 * dim) / 3); hidden = int(multiplier * hidden);
  //         hidden = multiple_of * ((hidden + multiple_of - 1) // multiple_of)
  auto hidden = static_cast<std::int64_t>(2.0 * static_cast<double>(4 * c.dim) / 3.0);
  if (c.ffn_dim_multiplier) {
    hidden = static_cast<std::int64_t>(*c.ffn_dim_multiplier * static_cast<double>(hidden));
  }
  return c.multiple_of * ((hidden + c.multiple_of - 1) / c.multiple_of);
}

std::int64_t llama3_head_dim(const Llama3Config& c) { return c.dim / c.n_heads; }

std::int64_t llama3_microbatch(const Llama3Config& c) {
  return c.grad_accum > 0 ? c.batch / c.grad_accum : c.batch;
}

core::TrainingOptions llama3_training(const Llama3Config& c) {
  return {.checkpoint = c.checkpoint,
          .grad_accum = c.grad_accum,
          .grad_sync = c.grad_sync,
          .execution = c.execution,
          .float8 = c.float8};
}

std::int64_t llama3_max_seq_len(const Llama3Config& c) { return c.max_seq_len.value_or(c.seq_len); }

Status validate_llama3_config(const Llama3Config& c) {
  DTPLAN_CHECK(positive("dim", c.dim));
  DTPLAN_CHECK(positive("n_layers", c.n_layers));
  DTPLAN_CHECK(positive("n_heads", c.n_heads));
  DTPLAN_CHECK(positive("n_kv_heads", c.n_kv_heads));
  DTPLAN_CHECK(positive("vocab_size", c.vocab_size));
  DTPLAN_CHECK(positive("batch", c.batch));
  DTPLAN_CHECK(positive("seq_len", c.seq_len));
  DTPLAN_CHECK(positive("multiple_of", c.multiple_of));
  DTPLAN_CHECK(positive("grad_accum", c.grad_accum));
  if (c.grad_accum > core::kMaxMicrobatches) {
    return Error::unsupported("field 'grad_accum': " + std::to_string(c.grad_accum) +
                              " microbatches is more than the " +
                              std::to_string(core::kMaxMicrobatches) + " supported" +
                              std::string(core::kMicrobatchLimitNote));
  }
  if (c.batch % c.grad_accum != 0) {
    return field_error("grad_accum", std::to_string(c.grad_accum) + " does not divide batch " +
                                         std::to_string(c.batch));
  }
  if (c.n_layers > kMaxLayers) {
    return Error::unsupported("field 'n_layers': " + std::to_string(c.n_layers) +
                              " layers is more than the " + std::to_string(kMaxLayers) +
                              " the builder supports" + core::limit_note("kMaxLayers"));
  }
  // Bounds that keep the FFN rule and every product below in range before checked arithmetic.
  constexpr std::int64_t kMaxSize = core::kMaxModelSize;
  for (auto [field, value] : {std::pair<std::string_view, std::int64_t>{"dim", c.dim},
                              {"vocab_size", c.vocab_size},
                              {"batch", c.batch},
                              {"seq_len", c.seq_len},
                              {"multiple_of", c.multiple_of}}) {
    if (value > kMaxSize) {
      return field_error(field, std::to_string(value) + " is larger than 2^40");
    }
  }
  if (c.dim % c.n_heads != 0) {
    return field_error("n_heads",
                       std::to_string(c.n_heads) + " does not divide dim " + std::to_string(c.dim));
  }
  if (c.n_heads % c.n_kv_heads != 0) {
    return field_error("n_kv_heads", std::to_string(c.n_kv_heads) + " does not divide n_heads " +
                                         std::to_string(c.n_heads));
  }
  if (llama3_head_dim(c) % 2 != 0) {
    return field_error("n_heads", "head_dim " + std::to_string(llama3_head_dim(c)) +
                                      " must be even (RoPE rotates pairs)");
  }
  if (c.ffn_dim) {
    DTPLAN_CHECK(positive("ffn_dim", *c.ffn_dim));
    if (*c.ffn_dim > kMaxSize) return field_error("ffn_dim", "is larger than 2^40");
  } else if (c.ffn_dim_multiplier &&
             !(std::isfinite(*c.ffn_dim_multiplier) && *c.ffn_dim_multiplier > 0 &&
               *c.ffn_dim_multiplier <= 1024)) {
    return field_error("ffn_dim_multiplier", "must be in (0, 1024]");
  }
  if (llama3_ffn_dim(c) <= 0) return field_error("ffn_dim_multiplier", "gives an empty FFN");
  if (c.max_seq_len) {
    DTPLAN_CHECK(positive("max_seq_len", *c.max_seq_len));
    if (*c.max_seq_len < c.seq_len) {
      return field_error("max_seq_len", std::to_string(*c.max_seq_len) + " is below seq_len " +
                                            std::to_string(c.seq_len));
    }
    if (*c.max_seq_len > kMaxSize) return field_error("max_seq_len", "is larger than 2^40");
  }
  if (!(c.norm_eps > 0 && std::isfinite(c.norm_eps))) {
    return field_error("norm_eps", "must be a positive number");
  }
  // Element counts of the largest tensors, times 8 bytes, must fit in 64 bits.
  const std::int64_t f = llama3_ffn_dim(c), b = llama3_microbatch(c), sq = c.seq_len,
                     v = c.vocab_size;
  const std::int64_t smax = llama3_max_seq_len(c), half = llama3_head_dim(c) / 2, d = c.dim;
  const std::pair<const char*, std::array<std::int64_t, 4>> kTensors[] = {
      {"logits [B,S,vocab_size]", {b, sq, v, 8}},
      {"FFN activation [B,S,F]", {b, sq, f, 8}},
      {"activation [B,S,dim]", {b, sq, d, 8}},
      {"embedding [vocab_size,dim]", {v, d, 1, 8}},
      {"FFN weight [F,dim]", {f, d, 1, 8}},
      {"freqs_cis [max_seq_len,head_dim/2]", {smax, half, 1, 8}},
  };
  for (const auto& [what, dims] : kTensors) {
    auto n = core::checked_product(dims, what);
    if (!n.ok()) return n.error();
  }
  auto params = llama3_param_count(c);
  if (!params.ok()) return params.error();
  return {};
}

Result<std::int64_t> llama3_param_count(const Llama3Config& c) {
  constexpr std::string_view what = "parameter count";
  const std::int64_t d = c.dim, kv = c.n_kv_heads * llama3_head_dim(c), f = llama3_ffn_dim(c);
  DTPLAN_TRY(std::int64_t dd, core::checked_mul(d, d, what));
  DTPLAN_TRY(std::int64_t dkv, core::checked_mul(d, kv, what));
  DTPLAN_TRY(std::int64_t df, core::checked_mul(d, f, what));
  // per layer: wq + wo (D*D each), wk + wv (D*kv each), w1 + w2 + w3 (D*F each), 2 norms (D)
  std::int64_t layer = 0;
  for (auto [count, size] : {std::pair{2, dd}, {2, dkv}, {3, df}, {2, d}}) {
    DTPLAN_TRY(std::int64_t part, core::checked_mul(count, size, what));
    DTPLAN_TRY(layer, core::checked_add(layer, part, what));
  }
  DTPLAN_TRY(std::int64_t layers, core::checked_mul(layer, c.n_layers, what));
  DTPLAN_TRY(std::int64_t vd, core::checked_mul(c.vocab_size, d, what));
  DTPLAN_TRY(std::int64_t embeddings, core::checked_mul(2, vd, what));
  DTPLAN_TRY(std::int64_t total, core::checked_add(layers, embeddings, what));
  return core::checked_add(total, d, what);
}

std::string_view attention_kernel_name(AttentionKernel kernel) {
  switch (kernel) {
    case AttentionKernel::kCudnn:
      return "cudnn";
    case AttentionKernel::kFlash:
      return "flash";
    case AttentionKernel::kEfficient:
      return "efficient";
  }
  return "?";
}

Result<AttentionKernel> parse_attention_kernel(std::string_view text, std::string_view what) {
  for (auto k : {AttentionKernel::kCudnn, AttentionKernel::kFlash, AttentionKernel::kEfficient}) {
    if (attention_kernel_name(k) == text) return k;
  }
  return Error::bad_input(std::string(what) + ": unknown attention kernel '" + std::string(text) +
                          "' (use cudnn, flash or efficient)");
}

}  // namespace dtplan::graph
