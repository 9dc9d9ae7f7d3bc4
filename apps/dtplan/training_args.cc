#include "training_args.h"

#include <algorithm>

#include "core/strings.h"
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

core::Status check_grad_accum(std::int64_t value) {
  if (value > core::kMaxMicrobatches) {
    return core::Error::unsupported("--grad-accum: " + std::to_string(value) +
                                    " microbatches is more than the " +
                                    std::to_string(core::kMaxMicrobatches) + " supported" +
                                    std::string(core::kMicrobatchLimitNote));
  }
  return {};
}

// A list flag's positive integers, without repeats, in the order given.
core::Result<std::vector<std::int64_t>> positive_list(const std::string& text,
                                                      const std::string& flag) {
  DTPLAN_TRY(std::vector<std::int64_t> values, core::parse_int_list(text, flag));
  std::vector<std::int64_t> out;
  for (std::int64_t v : values) {
    if (v < 1) return core::Error::bad_input(flag + ": " + std::to_string(v) + " is not >= 1");
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

void add_training_options(CLI::App& app, TrainingArgs& args, ChoiceFlags choices) {
  if (choices == ChoiceFlags::kLists) {
    app.add_option("--batch", args.batch_list,
                   "Global batches per step to try, e.g. 256,512 (default: the model's)")
        ->type_name("LIST");
    app.add_option("--grad-accum", args.grad_accum_list,
                   "Microbatches per step to try, e.g. 1,2,4 (each must divide the batch)")
        ->type_name("LIST");
    app.add_option("--checkpoint", args.checkpoint,
                   "Activation checkpointing to try: none,selective_op,full (default: the "
                   "model's)")
        ->type_name("LIST");
  } else {
    add_number_option(app, "--batch", args.batch,
                      "Override the model's global batch per step (all microbatches)");
    app.add_option("--checkpoint", args.checkpoint,
                   "Override the model's activation checkpointing: none | selective_op | full");
    add_number_option(app, "--grad-accum", args.grad_accum,
                      "Override the model's microbatches per step (gradient accumulation; must "
                      "divide the batch)");
  }
  add_number_option(app, "--seq-len", args.seq_len, "Override the model's sequence length");
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
  if (args.grad_accum) DTPLAN_CHECK(check_grad_accum(*args.grad_accum));
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

namespace dtplan::cli {

core::Result<TrainingLists> apply_training_lists(const TrainingArgs& args,
                                                 graph::ModelOverrides& overrides) {
  TrainingArgs single = args;
  single.checkpoint.clear();
  DTPLAN_CHECK(apply_training_args(single, overrides));
  TrainingLists lists;
  if (!args.batch_list.empty()) {
    DTPLAN_TRY(lists.batches, positive_list(args.batch_list, "--batch"));
  }
  if (!args.grad_accum_list.empty()) {
    DTPLAN_TRY(lists.grad_accums, positive_list(args.grad_accum_list, "--grad-accum"));
    for (std::int64_t v : lists.grad_accums) DTPLAN_CHECK(check_grad_accum(v));
  }
  if (!args.checkpoint.empty()) {
    for (std::string_view name : core::split(args.checkpoint, ',')) {
      DTPLAN_TRY(core::CheckpointPolicy p, core::parse_checkpoint_policy(name, "--checkpoint"));
      if (std::find(lists.checkpoints.begin(), lists.checkpoints.end(), p) ==
          lists.checkpoints.end()) {
        lists.checkpoints.push_back(p);
      }
    }
  }
  // A list of one value is an override of the model, as in plan.
  if (lists.batches.size() == 1) overrides.batch = lists.batches.front();
  if (lists.grad_accums.size() == 1) overrides.grad_accum = lists.grad_accums.front();
  if (lists.checkpoints.size() == 1) overrides.checkpoint = lists.checkpoints.front();
  if (lists.batches.size() == 1) lists.batches.clear();
  if (lists.grad_accums.size() == 1) lists.grad_accums.clear();
  if (lists.checkpoints.size() == 1) lists.checkpoints.clear();
  return lists;
}

}  // namespace dtplan::cli
