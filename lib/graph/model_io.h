#pragma once
// Model files (configs/models/*.json): either a builder configuration expanded by a built-in
// builder,
//   {"builder": "llama3", "name": "llama3-8b", "dim": 4096, "n_layers": 32, "n_heads": 32,
//    "n_kv_heads": 8, "vocab_size": 128256, "ffn_dim_multiplier": 1.3, "multiple_of": 1024,
//    "norm_eps": 1e-5, "rope_theta": 500000, "batch": 16, "seq_len": 8192}
// (optional: "ffn_dim", "max_seq_len", "attention": cudnn|flash|efficient,
//  "checkpoint": none|selective_op|full, "grad_accum": N (microbatches; "batch" stays the global
//  batch), "grad_sync": every_microbatch|last_microbatch, "compile": true|false,
//  "float8": none|tensorwise|rowwise, "comment"), or a
// graph document (graph_io.h). A graph document goes through what AutoParallel applies to a traced
// graph before solving: alias insertion (alias_pass.h; a no-op on an already aliased graph), then,
// when it carries no repeat annotation, repeated-layer detection (layer_groups.h from its layer
// ids, or repeat_regions.h when no node has one). Errors name the file and the field:
// "configs/models/x.json: field 'n_kv_heads': 5 does not divide n_heads 32".
//
// This is what `dtplan plan --model FILE [--layers N]` calls:
//   Model m = load_model("configs/models/llama3-8b.json", {.layers = 2}).value();

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "graph/graph.h"
#include "graph/llama3_config.h"

namespace dtplan::graph {

// Command-line overrides of a builder configuration (--layers, --batch, --seq-len,
// --checkpoint, --grad-accum, --no-grad-sync, --float8).
struct ModelOverrides {
  std::optional<std::int64_t> layers = std::nullopt;
  std::optional<std::int64_t> batch = std::nullopt;
  std::optional<std::int64_t> seq_len = std::nullopt;
  std::optional<CheckpointPolicy> checkpoint = std::nullopt;
  std::optional<std::int64_t> grad_accum = std::nullopt;
  std::optional<GradSync> grad_sync = std::nullopt;
  std::optional<core::Execution> execution = std::nullopt;  // --compile / --no-compile (any model)
  std::optional<core::Float8Recipe> float8 = std::nullopt;  // --float8 (builder models)

  // Whether any override that only a builder model takes is set (all of them).
  [[nodiscard]] bool builder_only() const {
    return layers || batch || seq_len || checkpoint || grad_accum || grad_sync || float8;
  }

  bool operator==(const ModelOverrides&) const = default;
};

struct Model {
  std::string name;
  std::string source;                  // "builder:llama3" or "graph"
  std::optional<Llama3Config> llama3;  // the configuration a builder model was built from
  Graph graph;                         // validated; one microbatch's
  // The step's options: a builder model's (llama3_training); a graph document's are one
  // microbatch, and checkpoint selective_op when a node is tagged for recomputation (its tags
  // say what), else none.
  core::TrainingOptions training;
};

// Parses a model document. `what` names it in errors (the file path). Overrides apply to
// builder models; on a graph document they are an error (kUnsupported), since its layers are
// fixed. A batch and a grad_accum that do not divide are named by the flag that set them
// ("--grad-accum: 3 does not divide the batch 16"). The overrides are checked first and their
// errors name the flag, not the file:
// "--layers: 5000 is more than the supported maximum of 1024 layers (kMaxLayers in
// core/limits.h)" (kUnsupported; below 1: kBadInput).
core::Result<Model> parse_model(std::string_view json_text, std::string_view what,
                                const ModelOverrides& overrides = {});

// Reads and parses a model file.
core::Result<Model> load_model(const std::string& path, const ModelOverrides& overrides = {});

// Parses a {"builder": "llama3", ...} document into a configuration (no overrides, not built).
core::Result<Llama3Config> parse_llama3_config(std::string_view json_text);

}  // namespace dtplan::graph
