#pragma once
// Llama3Config: the torchtitan / AutoParallel LLaMA3 model arguments
// (docs/reference/strategy_selection.md §5.2) plus the training-step shape (batch, sequence) and
// the tracing choices that change the joint graph.
//
//   Llama3Config c;  // defaults are LLaMA3-8B at B=16, S=8192
//   llama3_ffn_dim(c) == 14336;  // int(2*4*4096/3) = 10922, x1.3 = 14198, up to 1024k -> 14336
//   llama3_param_count(c) == 8030261248

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/limits.h"
#include "core/result.h"
#include "core/training.h"

namespace dtplan::graph {

// Which SDPA kernel the trace holds (cuDNN is what H100 selects first,
// docs/reference/strategy_selection.md §5.2).
enum class AttentionKernel : std::uint8_t { kCudnn, kFlash, kEfficient };

// Activation checkpointing (core/training.h); kSelectiveOp is the example's default. The builder
// tags the blocks' forward nodes (Checkpoint in node.h); the joint graph is the same in every mode.
using core::CheckpointPolicy;
using core::GradSync;

struct Llama3Config {
  std::string name = "llama3";
  std::int64_t dim = 4096;
  std::int64_t n_layers = 32;
  std::int64_t n_heads = 32;
  std::int64_t n_kv_heads = 8;
  std::int64_t vocab_size = 128256;
  std::optional<std::int64_t> ffn_dim;  // explicit hidden size; else derived:
  std::optional<double> ffn_dim_multiplier = 1.3;
  std::int64_t multiple_of = 1024;
  double norm_eps = 1e-5;
  double rope_theta = 500000.0;  // recorded only: RoPE frequencies do not change the graph
  std::int64_t batch = 16;       // the global batch of one step (all microbatches)
  std::int64_t seq_len = 8192;
  std::optional<std::int64_t> max_seq_len;  // rows of freqs_cis; default seq_len
  AttentionKernel attention = AttentionKernel::kCudnn;
  CheckpointPolicy checkpoint = CheckpointPolicy::kSelectiveOp;
  std::int64_t grad_accum = 1;  // microbatches per step; the graph is one microbatch's
  GradSync grad_sync = GradSync::kEveryMicrobatch;
  core::Execution execution = core::Execution::kEager;  // "compile": true is kCompiled
  // "float8": which linears the builder converts and how (llama3_builder.h).
  core::Float8Recipe float8 = core::Float8Recipe::kNone;

  bool operator==(const Llama3Config&) const = default;
};

// Largest layer count the builder accepts (LLaMA3-405B has 126).
inline constexpr std::int64_t kMaxLayers = core::kMaxLayers;

// The FFN hidden size: ffn_dim if set, else torchtitan's rule
// multiple_of * ceil(int(multiplier * int(8 * dim / 3)) / multiple_of).
// Examples: 8B 14336, 70B (dim 8192, x1.3, 4096) 28672, 405B (dim 16384, x1.2, 4096) 53248.
std::int64_t llama3_ffn_dim(const Llama3Config& config);

std::int64_t llama3_head_dim(const Llama3Config& config);  // dim / n_heads
// The batch of one microbatch, the graph's: batch / grad_accum.
std::int64_t llama3_microbatch(const Llama3Config& config);
// The options the step is priced and simulated with.
core::TrainingOptions llama3_training(const Llama3Config& config);
std::int64_t llama3_max_seq_len(const Llama3Config& config);

// Checks the configuration; errors name the field ("field 'n_kv_heads': 5 does not divide
// n_heads 32"). Requires: positive sizes, n_heads | dim, n_kv_heads | n_heads, an even head_dim
// (RoPE pairs), grad_accum >= 1 dividing batch, seq_len <= max_seq_len, n_layers <= kMaxLayers, and
// every tensor's element count (logits B*S*V included) within 64 bits.
core::Status validate_llama3_config(const Llama3Config& config);

// Trainable parameters: 2*V*D + D + n_layers*(2*D*D + 2*D*Hkv*hd + 3*D*F + 2*D), checked.
// @pre validate_llama3_config(config) is ok.
core::Result<std::int64_t> llama3_param_count(const Llama3Config& config);

std::string_view attention_kernel_name(AttentionKernel kernel);  // "cudnn", "flash", "efficient"
core::Result<AttentionKernel> parse_attention_kernel(std::string_view text, std::string_view what);
using core::checkpoint_policy_name;
using core::parse_checkpoint_policy;

}  // namespace dtplan::graph
