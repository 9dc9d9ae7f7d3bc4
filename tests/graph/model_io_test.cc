#include "graph/model_io.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "core/text_file.h"
#include "graph/graph_io.h"
#include "graph/graph_stats.h"
#include "graph/validate.h"
#include "support/cli.h"

namespace dtplan::graph {
namespace {

using testing::source_path;

TEST_CASE("model files: the shipped LLaMA3 configurations") {
  struct Want {
    const char* file;
    std::int64_t dim, layers, heads, kv_heads, ffn, params;
  };
  for (const Want& w : {Want{"llama3-8b", 4096, 32, 32, 8, 14336, 8030261248},
                        Want{"llama3-70b", 8192, 80, 64, 8, 28672, 70553706496},
                        Want{"llama3-405b", 16384, 126, 128, 8, 53248, 405853388800},
                        Want{"llama3-tiny", 64, 2, 4, 2, 128, 106816}}) {
    CAPTURE(w.file);
    const std::string path = source_path(std::string("configs/models/") + w.file + ".json");
    auto config = parse_llama3_config(core::read_text_file(path, "model file").value());
    REQUIRE_MESSAGE(config.ok(), (config.ok() ? std::string() : config.error().message));
    CHECK(config->name == w.file);
    CHECK(config->dim == w.dim);
    CHECK(config->n_layers == w.layers);
    CHECK(config->n_heads == w.heads);
    CHECK(config->n_kv_heads == w.kv_heads);
    CHECK(config->vocab_size == (w.dim == 64 ? 256 : 128256));
    CHECK(llama3_ffn_dim(*config) == w.ffn);
    CHECK(llama3_param_count(*config).value() == w.params);
    // Built with two layers (the CLI's --layers 2), the graph is valid and sized accordingly.
    auto model = load_model(path, {.layers = 2});
    REQUIRE_MESSAGE(model.ok(), (model.ok() ? std::string() : model.error().message));
    CHECK(model->source == "builder:llama3");
    CHECK(model->llama3->n_layers == 2);
    CHECK(model->graph.size() == 56 + 2 * 253);
    CHECK(validate(model->graph).ok());
  }
  auto tiny = load_model(source_path("configs/models/llama3-tiny.json"));
  REQUIRE(tiny.ok());
  CHECK(tiny->llama3->batch == 4);
  CHECK(tiny->llama3->seq_len == 16);
  auto resized = load_model(source_path("configs/models/llama3-tiny.json"),
                            {.layers = 3, .batch = 2, .seq_len = 8});
  REQUIRE(resized.ok());
  CHECK(resized->llama3->n_layers == 3);
  CHECK(resized->graph.node(*resized->graph.find("tokens")).outputs[0].shape == Shape{2, 8});
  // A shorter sequence keeps the configured RoPE table and slices it.
  CHECK(resized->graph.node(*resized->graph.find("freqs_cis")).outputs[0].shape == Shape{16, 8});
}

TEST_CASE("model files: errors name the file and the field") {
  auto error_of = [](const std::string& text, ModelOverrides o = {}) {
    auto m = parse_model(text, "m.json", o);
    REQUIRE_FALSE(m.ok());
    return m.error();
  };
  CHECK(error_of(R"({"builder": "llama3", "dim": 64, "n_heads": 4, "n_kv_heads": 3})").message ==
        "m.json: field 'n_kv_heads': 3 does not divide n_heads 4");
  CHECK(error_of(R"({"builder": "llama3", "n_layer": 2})").message ==
        "m.json: field 'n_layer': unknown llama3 setting (did you mean 'n_layers'?)");
  CHECK(error_of(R"({"builder": "llama3", "dim": "big"})").message ==
        "m.json: field 'dim': expected an integer, got string");
  CHECK(error_of(R"({"builder": "gpt2"})").message ==
        "m.json: field 'builder': unknown builder 'gpt2' (use llama3)");
  CHECK(error_of(R"({"builder": "llama3", "attention": "math"})").message ==
        "m.json: field 'attention': unknown attention kernel 'math' (use cudnn, flash or "
        "efficient)");
  CHECK(error_of(R"({"builder": "llama3", "layers": 2})").message ==
        "m.json: field 'layers': the layer count is 'n_layers' (--layers overrides it)");
  CHECK(error_of(R"({"name": "x"})").message ==
        "m.json: a model file holds either \"builder\" (with its settings) or \"graph\"");
  CHECK(error_of("[1, 2").message.starts_with("m.json: invalid JSON: "));
  CHECK(error_of(R"({"builder": "llama3"})", {.layers = 0}).message == "--layers: 0 is not >= 1");
  auto graph_with_layers = error_of(R"({"graph": {"nodes": []}})", {.layers = 2});
  CHECK(graph_with_layers.kind == core::ErrorKind::kUnsupported);
  CHECK(error_of(R"({"graph": {"nodes": [{"name": "a", "op": "nope", "outputs": []}]}})").message ==
        "m.json: node 'a' field 'op': unknown op 'nope' (use \"other\" with a \"target\" for ops "
        "dtplan does not model)");
  auto missing = load_model("/nonexistent/model.json");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message ==
        "cannot read the model file /nonexistent/model.json: No such file or directory");
}

TEST_CASE("model files: a builder graph written out loads back unchanged") {
  Model built = load_model(source_path("configs/models/llama3-tiny.json")).value();
  const std::string text = graph_to_json(built.graph);
  Model loaded = parse_model(text, "tiny.json").value();
  CHECK(loaded.source == "graph");
  CHECK(loaded.graph == built.graph);
  // Without its annotation, the repeats come back from the layer ids ...
  Graph bare = built.graph;
  bare.set_repeats({});
  CHECK(parse_model(graph_to_json(bare), "bare.json").value().graph == built.graph);
  // ... and without layer ids, from structural hashing.
  for (std::size_t i = 0; i < bare.size(); ++i) bare.mutable_node(node_id(i)).layer = -1;
  CHECK(parse_model(graph_to_json(bare), "bare.json").value().graph == built.graph);
}

TEST_CASE("model files: the FX export sample loads") {
  auto model = load_model(source_path("tests/data/fx_export_sample.json"));
  REQUIRE_MESSAGE(model.ok(), (model.ok() ? std::string() : model.error().message));
  const Graph& g = model->graph;
  CHECK(model->name == "GatedMLP");
  CHECK(model->source == "graph");
  CHECK(validate(g).ok());
  GraphStats s = graph_stats(g).value();
  CHECK(s.params == 2 * 16 * 8);
  CHECK(op_count(s, OpKind::kMm) == 5);     // 2 forward, 3 backward (no input gradient in layer 0)
  CHECK(op_count(s, OpKind::kOther) == 2);  // threshold_backward, kept whole
  CHECK(op_count(s, OpKind::kGetitem) == 4);
  // Aliases were inserted: for the multi-user tensors and the three outputs.
  CHECK(op_count(s, OpKind::kAlias) > 3);
  const Node& w0 = g.node(*g.find("layers.0.fc.weight"));
  CHECK(w0.role == core::OpRole::kParam);
  CHECK(g.node(w0.pair).role == core::OpRole::kGrad);
  CHECK(g.node(w0.pair).outputs[0] == w0.outputs[0]);
  CHECK(g.node(*g.find("tangents_1")).role == core::OpRole::kTangent);
  CHECK(g.node(g.node(*g.find("tangents_1")).pair).role == core::OpRole::kOutput);
  // Layer 1 computes its input's gradient, layer 0 does not: the layers are not isomorphic.
  CHECK(g.repeats().empty());
  CHECK(s.layers.size() == 3);
}

bool have_python() { return std::system("command -v python3 >/dev/null 2>&1") == 0; }

TEST_CASE("export script: compiles, degrades without torch, emits the sample's format") {
  if (!have_python()) {
    MESSAGE("python3 not found; skipping the export script checks");
    return;
  }
  const std::string dir = DTPLAN_SOURCE_DIR;
  const std::string script = dir + "/scripts/export_fx_graph.py";
  // py_compile with the bytecode sent to /tmp, so that nothing is written into the source tree.
  CHECK(std::system(("python3 -B -c 'import py_compile, sys; py_compile.compile(sys.argv[1], "
                     "cfile=\"/tmp/dtplan_export_fx_graph.pyc\", doraise=True)' '" +
                     script + "'")
                        .c_str()) == 0);
  std::remove("/tmp/dtplan_export_fx_graph.pyc");
  // The exporter run on a stand-in joint graph (no PyTorch needed) gives the checked-in sample
  // byte for byte.
  CHECK(std::system(("python3 -B '" + dir + "/tests/graph/export_fx_graph_selftest.py' '" + dir +
                     "/tests/data/fx_export_sample.json'")
                        .c_str()) == 0);
  if (std::system("python3 -c 'import torch' >/dev/null 2>&1") != 0) {
    auto r =
        std::system(("python3 -B '" + script + "' mod:fn 2>/tmp/dtplan_export_err.txt").c_str());
    CHECK(WEXITSTATUS(r) == 2);
    std::string err = core::read_text_file("/tmp/dtplan_export_err.txt", "log").value();
    CHECK(err.find("PyTorch is not installed") != std::string::npos);
    std::remove("/tmp/dtplan_export_err.txt");
  }
}

}  // namespace
}  // namespace dtplan::graph
