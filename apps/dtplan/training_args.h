#pragma once
// The training-step flags `plan` and `sweep` share, each overriding the model file's value:
//   --batch N         the global batch of one step
//   --seq-len N       the sequence length
//   --checkpoint P    none | selective_op | full (activation checkpointing)
//   --grad-accum N    microbatches per step (N must divide the batch)
//   --no-grad-sync    reduce gradients on the last microbatch only (torch's
//                     set_requires_gradient_sync(False) on the others)
//   --compile / --no-compile   the blocks compiled by torch.compile (fused regions) or eager
//   --float8 R        none | tensorwise | rowwise (float8 linears, torchao)
// Bad values are one-line errors naming the flag (exit 2; a microbatch count above
// core::kMaxMicrobatches is exit 3).

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/training.h"
#include "graph/model_io.h"

namespace dtplan::cli {

// How --batch, --grad-accum and --checkpoint are taken: one value (plan), or a comma-separated
// list of values to try (sweep: "--batch 256,512 --grad-accum 1,2,4 --checkpoint none,full").
enum class ChoiceFlags : std::uint8_t { kSingle, kLists };

struct TrainingArgs {
  std::optional<std::int64_t> batch;
  std::optional<std::int64_t> seq_len;
  std::string checkpoint;  // "" when not given
  std::optional<std::int64_t> grad_accum;
  bool no_grad_sync = false;
  // --compile counts +1, --no-compile -1 (CLI11 flag pair): > 0 compiled, < 0 eager, 0 the file's.
  std::int64_t compile = 0;
  std::string float8;  // "" when not given
  // ChoiceFlags::kLists: the lists as given ("" when not given).
  std::string batch_list;
  std::string grad_accum_list;
};

// The values of a sweep's lists that have two or more entries (a list of one is an override of
// the model, as in plan); empty: not varied.
struct TrainingLists {
  std::vector<std::int64_t> batches;
  std::vector<std::int64_t> grad_accums;
  std::vector<core::CheckpointPolicy> checkpoints;
};

// Adds the flags above to `app`, filling `args`.
void add_training_options(CLI::App& app, TrainingArgs& args,
                          ChoiceFlags choices = ChoiceFlags::kSingle);

// The flags as model overrides (`overrides.layers` is kept).
core::Status apply_training_args(const TrainingArgs& args, graph::ModelOverrides& overrides);

// ChoiceFlags::kLists: the flags as overrides (lists of one value included) and the lists to
// try. Errors as apply_training_args, naming the flag and the bad entry.
core::Result<TrainingLists> apply_training_lists(const TrainingArgs& args,
                                                 graph::ModelOverrides& overrides);

}  // namespace dtplan::cli
