#include "graph/graph_io.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

#include "graph/llama3_builder.h"
#include "test_models.h"

namespace dtplan::graph {
namespace {

using Json = nlohmann::json;

// A small valid joint graph: a matmul, its tangent and weight gradient, a reduction, a split
// read through getitem.
const char* const kBase = R"({"graph": {"name": "t", "nodes": [
 {"name": "x", "op": "placeholder", "role": "input", "outputs": [{"shape": [4, 8], "dtype": "bf16"}]},
 {"name": "w", "op": "placeholder", "role": "param", "pair": "w_grad",
  "outputs": [{"shape": [8, 2], "dtype": "bf16"}], "layer": 0},
 {"name": "mm", "op": "mm", "inputs": ["x", "w"], "role": "output", "pair": "t",
  "outputs": [{"shape": [4, 2], "dtype": "bf16"}], "layer": 0},
 {"name": "sum", "op": "sum", "inputs": ["mm"], "attrs": {"dim": [1], "keepdim": true},
  "outputs": [{"shape": [4, 1], "dtype": "bf16"}]},
 {"name": "parts", "op": "split", "inputs": ["x"], "attrs": {"split_size": 4, "dim": 1},
  "outputs": [{"shape": [4, 4], "dtype": "bf16"}, {"shape": [4, 4], "dtype": "bf16"}]},
 {"name": "p1", "op": "getitem", "inputs": ["parts"], "attrs": {"index": 1},
  "outputs": [{"shape": [4, 4], "dtype": "bf16"}]},
 {"name": "t", "op": "placeholder", "role": "tangent", "pair": "mm", "phase": "backward",
  "outputs": [{"shape": [4, 2], "dtype": "bf16"}]},
 {"name": "xt", "op": "t", "inputs": ["x"], "phase": "backward",
  "outputs": [{"shape": [8, 4], "dtype": "bf16"}]},
 {"name": "w_grad", "op": "mm", "inputs": ["xt", "t"], "role": "grad", "pair": "w",
  "phase": "backward", "outputs": [{"shape": [8, 2], "dtype": "bf16"}], "layer": 0},
 {"name": "output", "op": "output", "inputs": ["mm", "w_grad", "sum", "p1"], "phase": "backward",
  "outputs": []}]}})";

Json& node(Json& doc, const std::string& name) {
  for (Json& n : doc["graph"]["nodes"]) {
    if (n["name"] == name) return n;
  }
  FAIL("no node " << name);
  return doc;
}

TEST_CASE("graph JSON: the base document is valid") {
  auto g = parse_graph_json(kBase);
  REQUIRE_MESSAGE(g.ok(), (g.ok() ? std::string() : g.error().message));
  CHECK(g->size() == 10);
  CHECK(g->name() == "t");
  const Node& mm = g->node(*g->find("mm"));
  CHECK(mm.inputs == std::vector<NodeId>{*g->find("x"), *g->find("w")});
  CHECK(g->node(*g->find("w")).pair == *g->find("w_grad"));
  CHECK(g->node(*g->find("sum")).attrs.get_ints("dim").value() == std::vector<std::int64_t>{1});
}

struct BadCase {
  const char* what;
  std::function<void(Json&)> edit;
  std::string message;  // exact expected error
};

TEST_CASE("graph JSON: every malformed field is an error naming the node and field") {
  const std::vector<BadCase> cases = {
      {"unknown op", [](Json& d) { node(d, "mm")["op"] = "mmm"; },
       "node 'mm' field 'op': unknown op 'mmm' (did you mean 'mm'?)"},
      {"bad input ref", [](Json& d) { node(d, "mm")["inputs"][1] = "x_9"; },
       "node 'mm' field 'inputs'[1]: unknown node 'x_9'"},
      {"bad input ref, close to a name", [](Json& d) { node(d, "sum")["inputs"][0] = "mn"; },
       "node 'sum' field 'inputs'[0]: unknown node 'mn' (did you mean 'mm'?)"},
      {"forward reference", [](Json& d) { node(d, "mm")["inputs"][1] = "xt"; },
       "node 'mm' field 'inputs'[1]: 'xt' is defined later (nodes must be in topological order; a "
       "cycle cannot be)"},
      {"self reference (cycle)", [](Json& d) { node(d, "sum")["inputs"][0] = "sum"; },
       "node 'sum' field 'inputs'[0]: 'sum' is the node itself (cycle)"},
      {"duplicate name", [](Json& d) { node(d, "sum")["name"] = "mm"; },
       "node 'mm' field 'name': duplicate name (nodes #2 and #3)"},
      {"missing name", [](Json& d) { node(d, "sum").erase("name"); },
       "node #3 field 'name': missing"},
      {"shape mismatch",
       [](Json& d) {
         node(d, "mm")["outputs"][0]["shape"] = {4, 3};
       },
       "node 'mm' field 'outputs'[0]: declared bf16[4,3], inferred bf16[4,2] from the inputs"},
      {"dtype mismatch", [](Json& d) { node(d, "xt")["outputs"][0]["dtype"] = "f32"; },
       "node 'xt' field 'outputs'[0]: declared f32[8,4], inferred bf16[8,4] from the inputs"},
      {"inconsistent inputs",
       [](Json& d) {
         node(d, "x")["outputs"][0]["shape"] = {4, 7};
       },
       "node 'mm' field 'inputs': mm needs [m,k] x [k,n], got [4,7] x [8,2]"},
      {"missing outputs", [](Json& d) { node(d, "sum").erase("outputs"); },
       "node 'sum' field 'outputs': missing"},
      {"bad dtype", [](Json& d) { node(d, "sum")["outputs"][0]["dtype"] = "bf17"; },
       "node 'sum' field 'outputs'[0].'dtype': unknown dtype 'bf17' (use f32, bf16, f16, f64, i32, "
       "i64, i8, u8, bool, f8e4m3 or c64)"},
      {"negative size",
       [](Json& d) {
         node(d, "x")["outputs"][0]["shape"] = {4, -8};
       },
       "node 'x' field 'outputs'[0].'shape': negative size in [4,-8]"},
      {"unknown node field", [](Json& d) { node(d, "sum")["input"] = {"mm"}; },
       "node 'sum': unknown field 'input' (did you mean 'inputs'?)"},
      {"attribute of the wrong type", [](Json& d) { node(d, "sum")["attrs"]["keepdim"] = 1; },
       "node 'sum' field 'attrs'.'keepdim': expected a bool, got integer 1"},
      {"attribute out of range", [](Json& d) { node(d, "sum")["attrs"]["dim"] = {5}; },
       "node 'sum' field 'attrs'.'dim': dimension 5 is out of range for a 2-d tensor"},
      {"unsupported attribute value",
       [](Json& d) {
         node(d, "sum")["attrs"]["extra"] = {{"a", 1}};
       },
       "node 'sum' field 'attrs'.'extra': unsupported value {\"a\":1} (use a number, bool, string "
       "or list of integers)"},
      {"bad phase", [](Json& d) { node(d, "sum")["phase"] = "fwd"; },
       "node 'sum' field 'phase': unknown phase 'fwd' (use forward, backward)"},
      {"bad role", [](Json& d) { node(d, "x")["role"] = "weight"; },
       "node 'x' field 'role': unknown role 'weight' (use none, param, buffer, input, tangent, "
       "grad, output)"},
      {"placeholder without role", [](Json& d) { node(d, "x").erase("role"); },
       "node 'x' field 'role': a placeholder needs role param, buffer, input or tangent"},
      {"placeholder role on an op", [](Json& d) { node(d, "sum")["role"] = "param"; },
       "node 'sum' field 'role': role 'param' is for placeholders only"},
      {"pair not mutual", [](Json& d) { node(d, "w")["pair"] = "sum"; },
       "node 'w' field 'pair': 'sum' does not name this node back"},
      {"pair of the wrong kind",
       [](Json& d) {
         node(d, "mm")["pair"] = "w_grad";
         node(d, "w_grad")["pair"] = "mm";
       },
       "node 'w' field 'pair': 'w_grad' does not name this node back"},
      {"unknown pair", [](Json& d) { node(d, "w")["pair"] = "nope"; },
       "node 'w' field 'pair': unknown node 'nope'"},
      {"grad without pair",
       [](Json& d) {
         node(d, "w_grad").erase("pair");
         node(d, "w").erase("pair");
       },
       "node 'w_grad' field 'pair': a grad names its param or input"},
      {"getitem index out of range", [](Json& d) { node(d, "p1")["attrs"]["index"] = 2; },
       "node 'p1' field 'attrs'.'index': 2 is out of range for 'parts' with 2 outputs"},
      {"getitem output differs",
       [](Json& d) {
         node(d, "p1")["outputs"][0]["shape"] = {4, 5};
       },
       "node 'p1' field 'outputs'[0]: declared bf16[4,5], but 'parts' output 1 is bf16[4,4]"},
      {"tuple read without getitem", [](Json& d) { node(d, "xt")["inputs"][0] = "parts"; },
       "node 'xt' field 'inputs'[0]: 'parts' produces 2 tensors; read one with getitem"},
      {"wrong input count", [](Json& d) { node(d, "mm")["inputs"] = {"x"}; },
       "node 'mm' field 'inputs': mm takes exactly 2 tensor inputs, got 1"},
      {"wrong output count",
       [](Json& d) {
         node(d, "output")["outputs"] = {{{"shape", {1}}, {"dtype", "f32"}}};
       },
       "node 'output' field 'outputs': output produces exactly 0 tensors, got 1"},
      {"output node not last",
       [](Json& d) {
         d["graph"]["nodes"].push_back({{"name", "late"},
                                        {"op", "neg"},
                                        {"inputs", {"x"}},
                                        {"outputs", {{{"shape", {4, 8}}, {"dtype", "bf16"}}}}});
       },
       "node 'output' field 'op': the output node must be the last node"},
      {"other without target", [](Json& d) { node(d, "sum")["op"] = "other"; },
       "node 'sum' field 'target': op 'other' needs the aten target"},
      {"target on a known op", [](Json& d) { node(d, "sum")["target"] = "aten.sum.dim_IntList"; },
       "node 'sum' field 'target': only op 'other' has a target"},
      {"layer below -1", [](Json& d) { node(d, "sum")["layer"] = -2; },
       "node 'sum' field 'layer': must be -1 or a layer id >= 0, got -2"},
      {"repeat group of one layer", [](Json& d) { d["graph"]["repeated_layers"] = {{0}}; },
       "graph field 'repeated_layers'[0]: a group needs at least two layers"},
      {"repeat group naming a missing layer",
       [](Json& d) {
         d["graph"]["repeated_layers"] = {{0, 3}};
       },
       "graph field 'repeated_layers'[0]: no node has layer 3"},
      {"non-isomorphic layers",
       [](Json& d) {
         node(d, "sum")["layer"] = 1;
         d["graph"]["repeated_layers"] = {{0, 1}};
       },
       "graph field 'repeated_layers'[0]: layer 1 differs from layer 0 at node 0 of the layer "
       "('sum' vs 'w')"},
      {"nodes not a list", [](Json& d) { d["graph"]["nodes"] = 3; },
       "graph field 'nodes': expected a list of nodes"},
      {"node not an object", [](Json& d) { d["graph"]["nodes"][2] = "mm"; },
       "node #2: expected an object"},
      {"missing graph", [](Json& d) { d.erase("graph"); }, "field 'graph': missing"},
      {"unknown top-level field", [](Json& d) { d["graphs"] = 1; },
       "model: unknown field 'graphs' (did you mean 'graph'?)"},
      {"integer out of range", [](Json& d) { node(d, "sum")["layer"] = 1e30; },
       "node 'sum' field 'layer': expected an integer, got number 1e+30"},
  };
  for (const BadCase& c : cases) {
    CAPTURE(c.what);
    Json doc = Json::parse(kBase);
    c.edit(doc);
    auto g = parse_graph_json(doc.dump());
    REQUIRE_FALSE(g.ok());
    CHECK(g.error().kind == core::ErrorKind::kBadInput);
    CHECK(g.error().message == c.message);
  }
  auto junk = parse_graph_json("{\"graph\": [");
  REQUIRE_FALSE(junk.ok());
  CHECK(junk.error().message.starts_with("invalid JSON: "));
}

TEST_CASE("graph JSON: write then read gives the same graph, byte-stable") {
  Llama3Config c = test_models::tiny_llama3();
  c.max_seq_len = 32;
  for (auto attention :
       {AttentionKernel::kCudnn, AttentionKernel::kFlash, AttentionKernel::kEfficient}) {
    c.attention = attention;
    Graph g = build_llama3(c).value();
    const std::string text = graph_to_json(g);
    auto back = parse_graph_json(text);
    REQUIRE_MESSAGE(back.ok(), (back.ok() ? std::string() : back.error().message));
    CHECK(*back == g);
    CHECK(graph_to_json(*back) == text);
  }
  Graph base = parse_graph_json(kBase).value();
  CHECK(parse_graph_json(graph_to_json(base)).value() == base);
  const std::string path = "/tmp/dtplan_graph_io_test.json";
  REQUIRE(write_graph_file(base, path).ok());
  CHECK(read_graph_file(path).value() == base);
  std::remove(path.c_str());
  auto missing = read_graph_file("/nonexistent/x.json");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message ==
        "cannot read the graph file /nonexistent/x.json: No such file or directory");
}

TEST_CASE("graph JSON: attribute values of every type survive a round trip") {
  Json doc = Json::parse(kBase);
  Json& s = node(doc, "sum");
  s["attrs"]["note"] = "free text";
  s["attrs"]["scale_like"] = 0.125;
  s["attrs"]["count"] = 3;
  s["attrs"]["flag"] = false;
  s["attrs"]["list"] = {1, -2};
  s["attrs"]["dtype"] = "torch.float32";  // the known 'dtype' attribute parses as a dtype
  s["attrs"]["alpha"] = "-inf";           // non-finite numbers are spelled as strings
  s["outputs"][0]["dtype"] = "f32";
  Graph g = parse_graph_json(doc.dump()).value();
  const Attributes& a = g.node(*g.find("sum")).attrs;
  CHECK(a.get_string("note").value() == "free text");
  CHECK(a.get_number("scale_like").value() == 0.125);
  CHECK(a.get_int("count").value() == 3);
  CHECK_FALSE(a.get_bool_or("flag", true).value());
  CHECK(a.get_ints("list").value() == std::vector<std::int64_t>{1, -2});
  CHECK(a.get_dtype("dtype").value() == core::DType::kF32);
  CHECK(a.get_number("alpha").value() == -std::numeric_limits<double>::infinity());
  CHECK(parse_graph_json(graph_to_json(g)).value() == g);
}

// Replaces random leaves (and removes random keys) of a valid document; the reader must return
// a graph or an error, never crash (run under ASan/UBSan by scripts/test.sh).
void fuzz_document(const Json& valid, std::uint64_t seed, int rounds) {
  std::mt19937_64 rng(seed);
  const Json pool = Json::parse(R"([-1, 0, 1, 2, 3, -7, 4611686018427387904, 1e300, -0.5, "x",
      "", true, null, [], {}, [1, 2], [-1], "mm", "getitem", "output", "inf", "bf16", "c64",
      "placeholder", "grad", "param", "backward", ["x", "x"]])");
  const Json flat = valid.flatten();
  std::vector<std::string> paths;
  for (const auto& [path, value] : flat.items()) paths.push_back(path);
  int errors = 0;
  for (int round = 0; round < rounds; ++round) {
    Json doc = valid;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      const Json::json_pointer at(paths[rng() % paths.size()]);
      if (!doc.contains(at)) continue;
      if (rng() % 5 == 0) {
        Json& parent = doc[at.parent_pointer()];
        if (parent.is_object()) {
          parent.erase(at.back());
        } else if (parent.is_array()) {
          parent.erase(static_cast<std::size_t>(std::stoul(at.back())));
        }
      } else {
        doc[at] = pool[rng() % pool.size()];
      }
    }
    auto g = parse_graph_json(doc.dump());
    if (!g.ok()) {
      ++errors;
      CHECK_FALSE(g.error().message.empty());
      continue;
    }
    // Whatever is accepted is valid and round-trips.
    CHECK(parse_graph_json(graph_to_json(*g)).value() == *g);
  }
  CHECK(errors > rounds / 2);
}

TEST_CASE("graph JSON: random corruptions are errors or valid graphs, never crashes") {
  fuzz_document(Json::parse(kBase), 99, 150);
  fuzz_document(Json::parse(graph_to_json(build_llama3(test_models::tiny_llama3(1)).value())), 7,
                6);
}

// Regression (tests/fuzz/regressions/model/): the syntax error's re-parse caught only
// parse_error, so a number beyond double (out_of_range) escaped as an exception.
TEST_CASE("graph JSON: a number too large for a double is invalid JSON, not an exception") {
  auto r = parse_graph_json(R"({"graph": {"nodes": [1e400]}})");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == core::ErrorKind::kBadInput);
  CHECK(r.error().message.find("invalid JSON: ") != std::string::npos);
  CHECK(r.error().message.find("number overflow") != std::string::npos);
}

}  // namespace
}  // namespace dtplan::graph
