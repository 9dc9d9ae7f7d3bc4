#pragma once
// The training-step options that cross modules (graph builds for them, strategy prices them, the
// plan records them, sim runs them): activation checkpointing, gradient accumulation and
// torch.compile, float8 training of the linears, and async tensor parallelism.
//
//   TrainingOptions t{.checkpoint = CheckpointPolicy::kFull, .grad_accum = 4,
//                     .grad_sync = GradSync::kLastMicrobatch};
//   checkpoint_policy_name(t.checkpoint) == "full"; grad_sync_name(t.grad_sync) ==
//   "last_microbatch"

#include <cstdint>
#include <string_view>

#include "core/result.h"

namespace dtplan::core {

// Activation checkpointing of the transformer blocks (torchtitan's `apply_ac`):
//   kNone        every forward value the backward reads is kept;
//   kSelectiveOp per-op SAC: matmul and attention outputs are kept, except every second matmul
//                of a block; everything else of the block is recomputed before its backward;
//   kFull        only each block's input is kept; the block's forward runs again before its
//                backward.
enum class CheckpointPolicy : std::uint8_t { kNone, kSelectiveOp, kFull };

// When FSDP reduces the gradients under gradient accumulation:
//   kEveryMicrobatch  FSDP2's default: every microbatch reduce-scatters its gradients and adds
//                     them to the sharded fp32 gradients;
//   kLastMicrobatch   torch's `set_requires_gradient_sync(False)` on all but the last
//                     microbatch: earlier ones accumulate unsharded fp32 gradients, the last
//                     one reduces once.
enum class GradSync : std::uint8_t { kEveryMicrobatch, kLastMicrobatch };

// How the transformer blocks run (torchtitan's `compile`): eagerly, one kernel per aten op, or
// compiled by torch.compile, the memory-bound ops between matmuls and attention fused into one
// kernel per region (graph/fusion.h).
enum class Execution : std::uint8_t { kEager, kCompiled };

// Float8 training of the transformer blocks' linears (torchao, docs/reference/torchtitan.md §6):
// the seven linears of every block run their three matmuls in fp8 (`output` and the embedding stay
// bf16):
//   kNone        bf16 everywhere;
//   kTensorwise  per-tensor dynamic scales; with FSDP the weights are cast to fp8 before their
//                all-gather (1 byte per element);
//   kRowwise     per-row scales; the weights are gathered in bf16.
enum class Float8Recipe : std::uint8_t { kNone, kTensorwise, kRowwise };

// Async tensor parallelism (torchtitan's `enable_async_tensor_parallel`, inductor's
// micro-pipeline TP, docs/reference/torchtitan.md §7): with kOn the transformer blocks' tp
// all-gathers that feed matmuls and the matmuls that feed tp reduce-scatters run as fused
// collective matmuls over NVLink peer copies (plan/async_tp.h); kOff runs them as NCCL collectives.
enum class AsyncTp : std::uint8_t { kOff, kOn };

// Microbatches per training step (grad_accum, `--grad-accum`, a plan's training.grad_accum): the
// step simulation runs every microbatch's tasks, so this bounds them with the layer count.
// Beyond it: kUnsupported, with the note limit_note() gives.
inline constexpr std::int64_t kMaxMicrobatches = 1024;

// " (kMaxMicrobatches in core/training.h)": the suffix of the errors of that limit.
inline constexpr std::string_view kMicrobatchLimitNote = " (kMaxMicrobatches in core/training.h)";

struct TrainingOptions {
  CheckpointPolicy checkpoint = CheckpointPolicy::kNone;
  std::int64_t grad_accum = 1;  // microbatches per step (>= 1)
  GradSync grad_sync = GradSync::kEveryMicrobatch;
  Execution execution = Execution::kEager;
  Float8Recipe float8 = Float8Recipe::kNone;
  AsyncTp async_tp = AsyncTp::kOff;
  bool operator==(const TrainingOptions&) const = default;
};

// "none", "selective_op", "full".
std::string_view checkpoint_policy_name(CheckpointPolicy policy);
// Errors (kBadInput) name `what`: "--checkpoint: unknown checkpoint policy 'x' (use none,
// selective_op or full)".
Result<CheckpointPolicy> parse_checkpoint_policy(std::string_view text, std::string_view what);

// "eager", "compiled".
std::string_view execution_name(Execution execution);

// "none", "tensorwise", "rowwise".
std::string_view float8_recipe_name(Float8Recipe recipe);
// Errors (kBadInput) name `what`: "--float8: unknown float8 recipe 'x' (use none, tensorwise or
// rowwise)".
Result<Float8Recipe> parse_float8_recipe(std::string_view text, std::string_view what);

// "every_microbatch", "last_microbatch".
std::string_view grad_sync_name(GradSync sync);
Result<GradSync> parse_grad_sync(std::string_view text, std::string_view what);

}  // namespace dtplan::core
