#include "training_args.h"

#include "core/training.h"
#include "number_arg.h"

namespace dtplan::cli {

namespace {

core::Status at_least_one(const std::optional<std::int64_t>& value, const std::string& flag) {
  if (value && *value < 1) {
    return core::Error::bad_input(flag + ": " + std::to_string(*value) + " is not >= 1");
  }
  return {};
}

}  // namespace

void add_training_options(CLI::App& app, TrainingArgs& args) {
  add_number_option(app, "--batch", args.batch,
                    "Override the model's global batch per step (all microbatches)");
  add_number_option(app, "--seq-len", args.seq_len, "Override the model's sequence length");
  app.add_option("--checkpoint", args.checkpoint,
                 "Override the model's activation checkpointing: none | selective_op | full");
  add_number_option(app, "--grad-accum", args.grad_accum,
                    "Override the model's microbatches per step (gradient accumulation; must "
                    "divide the batch)");
  app.add_flag("--no-grad-sync", args.no_grad_sync,
               "With --grad-accum: reduce gradients on the last microbatch only "
               "(set_requires_gradient_sync(False) on the others)");
  app.add_flag("--compile,!--no-compile", args.compile,
               "Override the model's compile: price the transformer blocks as torch.compile runs "
               "them (the memory-bound ops between matmuls and attention fused), or eager");
  app.add_option("--float8", args.float8,
                 "Override the model's float8 linears (torchao): none | tensorwise | rowwise");
}

core::Status apply_training_args(const TrainingArgs& args, graph::ModelOverrides& overrides) {
  DTPLAN_CHECK(at_least_one(args.batch, "--batch"));
  DTPLAN_CHECK(at_least_one(args.seq_len, "--seq-len"));
  DTPLAN_CHECK(at_least_one(args.grad_accum, "--grad-accum"));
  if (args.grad_accum && *args.grad_accum > core::kMaxMicrobatches) {
    return core::Error::unsupported("--grad-accum: " + std::to_string(*args.grad_accum) +
                                    " microbatches is more than the " +
                                    std::to_string(core::kMaxMicrobatches) + " supported" +
                                    std::string(core::kMicrobatchLimitNote));
  }
  overrides.batch = args.batch;
  overrides.seq_len = args.seq_len;
  overrides.grad_accum = args.grad_accum;
  if (!args.checkpoint.empty()) {
    DTPLAN_TRY(overrides.checkpoint,
               core::parse_checkpoint_policy(args.checkpoint, "--checkpoint"));
  }
  if (!args.float8.empty()) {
    DTPLAN_TRY(overrides.float8, core::parse_float8_recipe(args.float8, "--float8"));
  }
  if (args.no_grad_sync) overrides.grad_sync = core::GradSync::kLastMicrobatch;
  if (args.compile != 0) {
    overrides.execution = args.compile > 0 ? core::Execution::kCompiled : core::Execution::kEager;
  }
  return {};
}

}  // namespace dtplan::cli
