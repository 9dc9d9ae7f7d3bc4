#include "graph/model_io.h"

#include <algorithm>
#include <array>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/json_io.h"
#include "core/strings.h"
#include "core/text_file.h"
#include "graph/alias_pass.h"
#include "graph/graph_io.h"
#include "graph/layer_groups.h"
#include "graph/llama3_builder.h"
#include "graph/repeat_regions.h"

namespace dtplan::graph {
namespace {

using core::Error;
using core::Result;
using Json = nlohmann::ordered_json;

constexpr std::array<std::string_view, 24> kLlama3Fields = {
    "builder",     "name",       "comment",     "dim",        "n_layers",
    "n_heads",     "n_kv_heads", "vocab_size",  "ffn_dim",    "ffn_dim_multiplier",
    "multiple_of", "norm_eps",   "rope_theta",  "batch",      "seq_len",
    "max_seq_len", "attention",  "checkpoint",  "grad_accum", "grad_sync",
    "compile",     "float8",     "description", "layers"};

Error bad(std::string message) { return Error::bad_input(std::move(message)); }

std::string field(std::string_view name) { return "field '" + std::string(name) + "'"; }

std::string json_type(const Json& j) {
  if (j.is_number_integer() || j.is_number_unsigned()) return "integer";
  if (j.is_number_float()) return "number";
  return j.type_name();
}

// The document; errors are not prefixed with a file name (callers add it).
Result<Json> parse_json(std::string_view text) { return core::parse_json(text, ""); }

Result<std::int64_t> get_int(const Json& doc, std::string_view name) {
  const Json& j = doc[std::string(name)];
  if (j.is_number_integer()) return j.get<std::int64_t>();
  if (j.is_number_unsigned() &&
      j.get<std::uint64_t>() <=
          static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return static_cast<std::int64_t>(j.get<std::uint64_t>());
  }
  return bad(field(name) + ": expected an integer, got " + json_type(j));
}

Result<double> get_number(const Json& doc, std::string_view name) {
  const Json& j = doc[std::string(name)];
  if (j.is_number()) return j.get<double>();
  return bad(field(name) + ": expected a number, got " + json_type(j));
}

Result<std::string> get_string(const Json& doc, std::string_view name) {
  const Json& j = doc[std::string(name)];
  if (j.is_string()) return j.get<std::string>();
  return bad(field(name) + ": expected a string, got " + json_type(j));
}

Result<Llama3Config> llama3_config_from(const Json& doc) {
  for (const auto& [key, value] : doc.items()) {
    if (std::find(kLlama3Fields.begin(), kLlama3Fields.end(), key) != kLlama3Fields.end()) {
      continue;
    }
    std::vector<std::string> names(kLlama3Fields.begin(), kLlama3Fields.end());
    std::string message = field(key) + ": unknown llama3 setting";
    if (auto near = core::closest_name(key, names)) message += " (did you mean '" + *near + "'?)";
    return bad(message);
  }
  if (doc.contains("layers")) {
    return bad(field("layers") + ": the layer count is 'n_layers' (--layers overrides it)");
  }
  Llama3Config c;
  auto read_int = [&](std::string_view name, std::int64_t& out) -> core::Status {
    if (!doc.contains(std::string(name))) return {};
    DTPLAN_TRY(out, get_int(doc, name));
    return {};
  };
  if (doc.contains("name")) {
    DTPLAN_TRY(c.name, get_string(doc, "name"));
  }
  for (auto [name, slot] : {std::pair<std::string_view, std::int64_t*>{"dim", &c.dim},
                            {"n_layers", &c.n_layers},
                            {"n_heads", &c.n_heads},
                            {"vocab_size", &c.vocab_size},
                            {"multiple_of", &c.multiple_of},
                            {"batch", &c.batch},
                            {"seq_len", &c.seq_len},
                            {"grad_accum", &c.grad_accum}}) {
    DTPLAN_CHECK(read_int(name, *slot));
  }
  // n_kv_heads defaults to n_heads (plain multi-head attention), as in torchtitan.
  c.n_kv_heads = c.n_heads;
  DTPLAN_CHECK(read_int("n_kv_heads", c.n_kv_heads));
  if (doc.contains("ffn_dim")) {
    DTPLAN_TRY(std::int64_t f, get_int(doc, "ffn_dim"));
    c.ffn_dim = f;
  }
  if (doc.contains("ffn_dim_multiplier")) {
    if (doc["ffn_dim_multiplier"].is_null()) {
      c.ffn_dim_multiplier.reset();
    } else {
      DTPLAN_TRY(double m, get_number(doc, "ffn_dim_multiplier"));
      c.ffn_dim_multiplier = m;
    }
  }
  if (doc.contains("max_seq_len")) {
    DTPLAN_TRY(std::int64_t m, get_int(doc, "max_seq_len"));
    c.max_seq_len = m;
  }
  if (doc.contains("norm_eps")) {
    DTPLAN_TRY(c.norm_eps, get_number(doc, "norm_eps"));
  }
  if (doc.contains("rope_theta")) {
    DTPLAN_TRY(c.rope_theta, get_number(doc, "rope_theta"));
  }
  if (doc.contains("attention")) {
    DTPLAN_TRY(std::string a, get_string(doc, "attention"));
    DTPLAN_TRY(c.attention, parse_attention_kernel(a, field("attention")));
  }
  if (doc.contains("checkpoint")) {
    DTPLAN_TRY(std::string p, get_string(doc, "checkpoint"));
    DTPLAN_TRY(c.checkpoint, parse_checkpoint_policy(p, field("checkpoint")));
  }
  if (doc.contains("compile")) {
    const Json& j = doc["compile"];
    if (!j.is_boolean())
      return bad(field("compile") + ": expected true or false, got " + json_type(j));
    c.execution = j.get<bool>() ? core::Execution::kCompiled : core::Execution::kEager;
  }
  if (doc.contains("float8")) {
    DTPLAN_TRY(std::string r, get_string(doc, "float8"));
    DTPLAN_TRY(c.float8, core::parse_float8_recipe(r, field("float8")));
  }
  if (doc.contains("grad_sync")) {
    DTPLAN_TRY(std::string g, get_string(doc, "grad_sync"));
    DTPLAN_TRY(c.grad_sync, core::parse_grad_sync(g, field("grad_sync")));
  }
  for (std::string_view text_field : {"comment", "description"}) {
    if (doc.contains(std::string(text_field))) {
      DTPLAN_CHECK(get_string(doc, text_field));
    }
  }
  return c;
}

// The file's configuration with the overrides applied (errors name fields of the file).
Result<Llama3Config> configure(const Json& doc, const ModelOverrides& overrides) {
  DTPLAN_TRY(std::string builder, get_string(doc, "builder"));
  if (builder != "llama3") {
    return bad(field("builder") + ": unknown builder '" + builder + "' (use llama3)");
  }
  DTPLAN_TRY(Llama3Config config, llama3_config_from(doc));
  if (overrides.layers) config.n_layers = *overrides.layers;
  if (overrides.batch) config.batch = *overrides.batch;
  if (overrides.checkpoint) config.checkpoint = *overrides.checkpoint;
  if (overrides.grad_accum) config.grad_accum = *overrides.grad_accum;
  if (overrides.grad_sync) config.grad_sync = *overrides.grad_sync;
  if (overrides.execution) config.execution = *overrides.execution;
  if (overrides.float8) config.float8 = *overrides.float8;
  if (overrides.seq_len) {
    // A shorter sequence keeps the freqs_cis table (max_seq_len) of the configuration.
    if (!config.max_seq_len) config.max_seq_len = std::max(config.seq_len, *overrides.seq_len);
    config.seq_len = *overrides.seq_len;
  }
  return config;
}

// A batch that the microbatch count does not divide, named by the flag that made it
// (--grad-accum when both were given); errors of the file's own values are validate's.
core::Status check_batch_overrides(const Llama3Config& config, const ModelOverrides& overrides) {
  if (!(overrides.batch || overrides.grad_accum) || config.grad_accum < 1 ||
      config.batch % config.grad_accum == 0) {
    return {};
  }
  if (overrides.grad_accum) {
    return bad("--grad-accum: " + std::to_string(config.grad_accum) +
               " does not divide the batch " + std::to_string(config.batch));
  }
  return bad("--batch: " + std::to_string(config.batch) + " is not a multiple of grad_accum " +
             std::to_string(config.grad_accum));
}

Result<Model> build_model(const Llama3Config& config) {
  DTPLAN_TRY(Graph graph, build_llama3(config));
  Model model;
  model.name = config.name;
  model.source = "builder:llama3";
  model.llama3 = config;
  model.training = llama3_training(config);
  model.graph = std::move(graph);
  return model;
}

}  // namespace

Result<Llama3Config> parse_llama3_config(std::string_view json_text) {
  DTPLAN_TRY(Json doc, parse_json(json_text));
  if (!doc.is_object() || !doc.contains("builder")) {
    return bad("expected a JSON object with \"builder\": \"llama3\"");
  }
  DTPLAN_TRY(std::string builder, get_string(doc, "builder"));
  if (builder != "llama3") return bad(field("builder") + ": expected 'llama3'");
  return llama3_config_from(doc);
}

Result<Model> parse_model(std::string_view json_text, std::string_view what,
                          const ModelOverrides& overrides) {
  if (overrides.layers && *overrides.layers < 1) {
    return bad("--layers: " + std::to_string(*overrides.layers) + " is not >= 1");
  }
  if (overrides.layers && *overrides.layers > kMaxLayers) {
    return Error::unsupported("--layers: " + std::to_string(*overrides.layers) +
                              " is more than the supported maximum of " +
                              std::to_string(kMaxLayers) + " layers" +
                              core::limit_note("kMaxLayers"));
  }
  auto in_file = [&](Error e) { return e.with_context(what); };
  auto doc = parse_json(json_text);
  if (!doc.ok()) return in_file(doc.error());
  if (!doc->is_object() || (doc->contains("builder") == doc->contains("graph"))) {
    return in_file(bad("a model file holds either \"builder\" (with its settings) or \"graph\""));
  }
  if (doc->contains("builder")) {
    auto config = configure(*doc, overrides);
    if (!config.ok()) return in_file(config.error());
    DTPLAN_CHECK(check_batch_overrides(*config, overrides));
    auto model = build_model(*config);
    if (!model.ok()) return in_file(model.error());
    return model;
  }
  if (overrides.builder_only()) {
    return in_file(Error::unsupported(
        "--layers, --batch, --seq-len, --checkpoint, --grad-accum and --float8 apply to builder "
        "models; this file holds a fixed graph"));
  }
  auto parsed = parse_graph_json(json_text);
  if (!parsed.ok()) return in_file(parsed.error());
  // What AutoParallel does to a traced graph before the solve: alias insertion (idempotent, so
  // a builder graph written out and read back is unchanged), then the repeated layers.
  auto aliased = insert_aliases(*parsed);
  if (!aliased.ok()) return in_file(aliased.error());
  Graph graph = std::move(aliased).value();
  if (graph.repeats().empty()) {
    const bool has_layers = std::any_of(graph.nodes().begin(), graph.nodes().end(),
                                        [](const Node& n) { return n.layer >= 0; });
    if (has_layers) {
      graph.set_repeats(find_repeated_layers(graph));
    } else {
      graph = with_inferred_layers(graph);
    }
  }
  Model model;
  model.name = graph.name();
  model.source = "graph";
  if (std::any_of(graph.nodes().begin(), graph.nodes().end(),
                  [](const Node& n) { return n.checkpoint == Checkpoint::kRecompute; })) {
    model.training.checkpoint = CheckpointPolicy::kSelectiveOp;
  }
  // Compiling fuses by the graph's layers and op kinds, which a graph document has too.
  if (overrides.execution) model.training.execution = *overrides.execution;
  model.graph = std::move(graph);
  return model;
}

Result<Model> load_model(const std::string& path, const ModelOverrides& overrides) {
  DTPLAN_TRY(std::string text, core::read_text_file(path, "model file"));
  return parse_model(text, path, overrides);
}

}  // namespace dtplan::graph
