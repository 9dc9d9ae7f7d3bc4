#include "graph/graph_io.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "core/json_io.h"
#include "core/limits.h"
#include "core/output_file.h"
#include "core/strings.h"
#include "core/text_file.h"
#include "graph/validate.h"

namespace dtplan::graph {
namespace {

using core::Error;
using core::Result;
using core::Status;
using Json = nlohmann::ordered_json;
using OJson = nlohmann::ordered_json;

constexpr std::string_view kNodeFields[] = {"name",    "op",    "target",    "inputs",
                                            "outputs", "attrs", "phase",     "layer",
                                            "role",    "pair",  "checkpoint"};

std::string json_type(const Json& j) {
  if (j.is_number_integer()) return "integer";
  if (j.is_number_float()) return "number";
  return j.type_name();
}

Error bad(std::string message) { return Error::bad_input(std::move(message)); }

// Compact text; invalid UTF-8 (only possible in programmatically built names) is replaced
// rather than thrown on.
template <class J>
std::string dump(const J& j) {
  return j.dump(-1, ' ', false, nlohmann::detail::error_handler_t::replace);
}

// Rejects keys outside `allowed`, suggesting the closest one.
template <class Names>
Status check_keys(const Json& object, const Names& allowed, const std::string& where) {
  std::vector<std::string> names(std::begin(allowed), std::end(allowed));
  for (const auto& [key, value] : object.items()) {
    if (std::find(names.begin(), names.end(), key) != names.end()) continue;
    std::string message = where + ": unknown field '" + key + "'";
    if (auto near = core::closest_name(key, names)) message += " (did you mean '" + *near + "'?)";
    return bad(message);
  }
  return {};
}

Result<std::int64_t> get_int64(const Json& j, const std::string& where) {
  if (j.is_number_integer()) return j.get<std::int64_t>();
  if (j.is_number_unsigned()) {
    auto u = j.get<std::uint64_t>();
    if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return static_cast<std::int64_t>(u);
    }
  }
  return bad(where + ": expected an integer, got " + json_type(j) + " " + dump(j));
}

Result<std::vector<std::int64_t>> get_int_list(const Json& j, const std::string& where) {
  if (!j.is_array()) return bad(where + ": expected a list of integers, got " + json_type(j));
  std::vector<std::int64_t> out;
  out.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) {
    DTPLAN_TRY(std::int64_t v, get_int64(j[i], where + "[" + std::to_string(i) + "]"));
    out.push_back(v);
  }
  return out;
}

Result<std::string> get_string(const Json& j, const std::string& where) {
  if (!j.is_string()) return bad(where + ": expected a string, got " + json_type(j));
  return j.get<std::string>();
}

std::optional<double> non_finite(const std::string& s) {
  if (s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

Result<AttrValue> parse_attr(const std::string& name, const Json& j, const std::string& where) {
  auto type = known_attr_type(name);
  auto wrong = [&](std::string_view want) {
    return bad(where + ": expected " + std::string(want) + ", got " + json_type(j) + " " + dump(j));
  };
  if (type) {
    switch (*type) {
      case AttrType::kInt: {
        DTPLAN_TRY(std::int64_t v, get_int64(j, where));
        return AttrValue{v};
      }
      case AttrType::kNumber:
        if (j.is_number_float()) return AttrValue{j.get<double>()};
        if (j.is_number()) {
          DTPLAN_TRY(std::int64_t v, get_int64(j, where));
          return AttrValue{v};
        }
        if (j.is_string()) {
          if (auto d = non_finite(j.get<std::string>())) return AttrValue{*d};
        }
        return wrong("a number");
      case AttrType::kBool:
        if (!j.is_boolean()) return wrong("a bool");
        return AttrValue{j.get<bool>()};
      case AttrType::kString:
        if (!j.is_string()) return wrong("a string");
        return AttrValue{j.get<std::string>()};
      case AttrType::kInts: {
        DTPLAN_TRY(std::vector<std::int64_t> v, get_int_list(j, where));
        return AttrValue{std::move(v)};
      }
      case AttrType::kIntOrInts:
        if (j.is_array()) {
          DTPLAN_TRY(std::vector<std::int64_t> v, get_int_list(j, where));
          return AttrValue{std::move(v)};
        }
        if (j.is_number_integer() || j.is_number_unsigned()) {
          DTPLAN_TRY(std::int64_t v, get_int64(j, where));
          return AttrValue{v};
        }
        return wrong("an integer or a list of integers");
      case AttrType::kDType: {
        if (!j.is_string()) return wrong("a dtype name");
        DTPLAN_TRY(core::DType d, core::parse_dtype(j.get<std::string>(), where));
        return AttrValue{d};
      }
    }
  }
  // Names dtplan does not interpret keep the JSON type they were written with.
  if (j.is_boolean()) return AttrValue{j.get<bool>()};
  if (j.is_number_float()) return AttrValue{j.get<double>()};
  if (j.is_number()) {
    DTPLAN_TRY(std::int64_t v, get_int64(j, where));
    return AttrValue{v};
  }
  if (j.is_string()) return AttrValue{j.get<std::string>()};
  if (j.is_array()) {
    DTPLAN_TRY(std::vector<std::int64_t> v, get_int_list(j, where));
    return AttrValue{std::move(v)};
  }
  return bad(where + ": unsupported value " + dump(j) +
             " (use a number, bool, string or list of integers)");
}

Result<TensorMeta> parse_meta(const Json& j, const std::string& where) {
  if (!j.is_object()) return bad(where + ": expected {\"shape\": [...], \"dtype\": ...}");
  DTPLAN_CHECK(check_keys(j, std::array{"shape", "dtype"}, where));
  if (!j.contains("shape")) return bad(where + ".'shape': missing");
  if (!j.contains("dtype")) return bad(where + ".'dtype': missing");
  TensorMeta meta;
  DTPLAN_TRY(meta.shape, get_int_list(j["shape"], where + ".'shape'"));
  if (meta.shape.size() > core::kMaxTensorRank) {
    return core::Error::unsupported(
        where + ".'shape': " + std::to_string(meta.shape.size()) + " dims; a tensor has at most " +
        std::to_string(core::kMaxTensorRank) + core::limit_note("kMaxTensorRank"));
  }
  for (std::int64_t s : meta.shape) {
    if (s < 0) return bad(where + ".'shape': negative size in " + format_shape(meta.shape));
  }
  DTPLAN_TRY(std::string dtype, get_string(j["dtype"], where + ".'dtype'"));
  DTPLAN_TRY(meta.dtype, core::parse_dtype(dtype, where + ".'dtype'"));
  return meta;
}

// Resolves an input or pair name: known so far, defined later, or unknown (with a suggestion).
Error unresolved(const std::string& where, const std::string& name, const std::string& self,
                 const std::unordered_map<std::string, std::size_t>& all_names,
                 std::span<const std::string> names) {
  if (name == self) return bad(where + ": '" + name + "' is the node itself (cycle)");
  if (all_names.contains(name)) {
    return bad(where + ": '" + name +
               "' is defined later (nodes must be in topological order; a cycle cannot be)");
  }
  std::string message = where + ": unknown node '" + name + "'";
  if (auto near = core::closest_name(name, names)) message += " (did you mean '" + *near + "'?)";
  return bad(message);
}

struct NodeJson {
  Node node;
  std::string pair_name;
};

Result<NodeJson> parse_node(const Json& j, std::size_t index, const Graph& graph,
                            const std::unordered_map<std::string, std::size_t>& all_names,
                            std::span<const std::string> names) {
  NodeJson out;
  Node& node = out.node;
  node.name = names[index];
  const std::string label = node_label(node.name);
  auto f = [&](std::string_view name) { return label + " field '" + std::string(name) + "'"; };
  DTPLAN_CHECK(check_keys(j, kNodeFields, label));
  if (!j.contains("op")) return bad(f("op") + ": missing");
  DTPLAN_TRY(std::string op, get_string(j["op"], f("op")));
  DTPLAN_TRY(node.op, parse_op_kind(op, f("op")));
  if (j.contains("target")) {
    DTPLAN_TRY(node.target, get_string(j["target"], f("target")));
  }
  if (j.contains("inputs")) {
    const Json& inputs = j["inputs"];
    if (!inputs.is_array()) return bad(f("inputs") + ": expected a list of node names");
    for (std::size_t s = 0; s < inputs.size(); ++s) {
      const std::string where = f("inputs") + "[" + std::to_string(s) + "]";
      DTPLAN_TRY(std::string name, get_string(inputs[s], where));
      auto id = graph.find(name);
      if (!id) return unresolved(where, name, node.name, all_names, names);
      node.inputs.push_back(*id);
    }
  }
  if (!j.contains("outputs")) return bad(f("outputs") + ": missing");
  const Json& outputs = j["outputs"];
  if (!outputs.is_array()) return bad(f("outputs") + ": expected a list of {shape, dtype}");
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    DTPLAN_TRY(TensorMeta meta,
               parse_meta(outputs[i], f("outputs") + "[" + std::to_string(i) + "]"));
    node.outputs.push_back(std::move(meta));
  }
  if (j.contains("attrs")) {
    const Json& attrs = j["attrs"];
    if (!attrs.is_object()) return bad(f("attrs") + ": expected an object");
    for (const auto& [key, value] : attrs.items()) {
      DTPLAN_TRY(AttrValue v, parse_attr(key, value, label + " " + attr_field(key)));
      node.attrs.set(key, std::move(v));
    }
  }
  if (j.contains("phase")) {
    DTPLAN_TRY(std::string phase, get_string(j["phase"], f("phase")));
    DTPLAN_TRY(node.phase, parse_phase(phase, f("phase")));
  }
  if (j.contains("layer")) {
    DTPLAN_TRY(std::int64_t layer, get_int64(j["layer"], f("layer")));
    if (layer < -1 || layer > std::numeric_limits<std::int32_t>::max()) {
      return bad(f("layer") + ": must be -1 or a layer id >= 0, got " + std::to_string(layer));
    }
    node.layer = static_cast<std::int32_t>(layer);
  }
  if (j.contains("role")) {
    DTPLAN_TRY(std::string role, get_string(j["role"], f("role")));
    DTPLAN_TRY(node.role, core::parse_graph_role(role, f("role")));
  }
  if (j.contains("pair")) {
    DTPLAN_TRY(out.pair_name, get_string(j["pair"], f("pair")));
  }
  if (j.contains("checkpoint")) {
    DTPLAN_TRY(std::string c, get_string(j["checkpoint"], f("checkpoint")));
    DTPLAN_TRY(node.checkpoint, parse_checkpoint(c, f("checkpoint")));
  }
  return out;
}

Result<std::vector<RepeatGroup>> parse_repeats(const Json& j) {
  const std::string where = "graph field 'repeated_layers'";
  if (!j.is_array()) return bad(where + ": expected a list of lists of layer ids");
  std::vector<RepeatGroup> out;
  for (std::size_t g = 0; g < j.size(); ++g) {
    const std::string at = where + "[" + std::to_string(g) + "]";
    DTPLAN_TRY(std::vector<std::int64_t> layers, get_int_list(j[g], at));
    RepeatGroup group;
    for (std::int64_t layer : layers) {
      if (layer < 0 || layer > std::numeric_limits<std::int32_t>::max()) {
        return bad(at + ": layer ids are >= 0, got " + std::to_string(layer));
      }
      group.layers.push_back(static_cast<std::int32_t>(layer));
    }
    out.push_back(std::move(group));
  }
  return out;
}

Result<Graph> parse_graph_object(const Json& g, std::string name) {
  if (!g.is_object()) return bad("field 'graph': expected an object with \"nodes\"");
  DTPLAN_CHECK(check_keys(g, std::array{"name", "nodes", "repeated_layers"}, "graph"));
  if (g.contains("name")) {
    DTPLAN_TRY(name, get_string(g["name"], "graph field 'name'"));
  }
  if (!g.contains("nodes")) return bad("graph field 'nodes': missing");
  const Json& nodes = g["nodes"];
  if (!nodes.is_array()) return bad("graph field 'nodes': expected a list of nodes");
  if (static_cast<std::int64_t>(nodes.size()) > core::kMaxGraphNodes) {
    return core::Error::unsupported("graph field 'nodes': " + std::to_string(nodes.size()) +
                                    " nodes is more than the supported maximum of " +
                                    std::to_string(core::kMaxGraphNodes) +
                                    core::limit_note("kMaxGraphNodes"));
  }
  // Pass 1: names (so that a reference to a later node reads "defined later", not "unknown").
  std::vector<std::string> names;
  std::unordered_map<std::string, std::size_t> all_names;
  names.reserve(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string label = "node #" + std::to_string(i);
    if (!nodes[i].is_object()) return bad(label + ": expected an object");
    if (!nodes[i].contains("name")) return bad(label + " field 'name': missing");
    DTPLAN_TRY(std::string n, get_string(nodes[i]["name"], label + " field 'name'"));
    if (n.empty()) return bad(label + " field 'name': must not be empty");
    if (auto [it, fresh] = all_names.emplace(n, i); !fresh) {
      return bad(node_label(n) + " field 'name': duplicate name (nodes #" +
                 std::to_string(it->second) + " and #" + std::to_string(i) + ")");
    }
    names.push_back(std::move(n));
  }
  // Pass 2: nodes, in order.
  Graph graph(std::move(name));
  std::vector<std::string> pair_names(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    DTPLAN_TRY(NodeJson parsed, parse_node(nodes[i], i, graph, all_names, names));
    pair_names[i] = std::move(parsed.pair_name);
    DTPLAN_CHECK(graph.add_node(std::move(parsed.node)));
  }
  // Pass 3: pairs, which may name later nodes.
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (pair_names[i].empty()) continue;
    auto id = graph.find(pair_names[i]);
    if (!id) {
      return bad(node_label(names[i]) + " field 'pair': unknown node '" + pair_names[i] + "'");
    }
    graph.mutable_node(node_id(i)).pair = *id;
  }
  if (g.contains("repeated_layers")) {
    DTPLAN_TRY(std::vector<RepeatGroup> repeats, parse_repeats(g["repeated_layers"]));
    graph.set_repeats(std::move(repeats));
  }
  DTPLAN_CHECK(validate(graph));
  return graph;
}

OJson attr_to_json(const AttrValue& value) {
  struct Visitor {
    OJson operator()(std::int64_t i) const { return i; }
    OJson operator()(double d) const {
      if (std::isnan(d)) return "nan";
      if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
      return d;
    }
    OJson operator()(bool b) const { return b; }
    OJson operator()(const std::string& s) const { return s; }
    OJson operator()(const std::vector<std::int64_t>& l) const { return l; }
    OJson operator()(core::DType d) const { return std::string(core::dtype_name(d)); }
  };
  return std::visit(Visitor{}, value);
}

OJson node_to_json(const Graph& graph, const Node& node) {
  OJson j;
  j["name"] = node.name;
  j["op"] = std::string(op_name(node.op));
  if (!node.target.empty()) j["target"] = node.target;
  if (!node.inputs.empty()) {
    OJson inputs = OJson::array();
    for (NodeId in : node.inputs) inputs.push_back(graph.node(in).name);
    j["inputs"] = std::move(inputs);
  }
  OJson outputs = OJson::array();
  for (const TensorMeta& m : node.outputs) {
    OJson o;
    o["shape"] = m.shape;
    o["dtype"] = std::string(core::dtype_name(m.dtype));
    outputs.push_back(std::move(o));
  }
  j["outputs"] = std::move(outputs);
  if (!node.attrs.empty()) {
    OJson attrs = OJson::object();
    for (const auto& [name, value] : node.attrs.entries()) attrs[name] = attr_to_json(value);
    j["attrs"] = std::move(attrs);
  }
  j["phase"] = std::string(phase_name(node.phase));
  j["layer"] = node.layer;
  if (node.role != core::OpRole::kNone) j["role"] = std::string(core::graph_role_name(node.role));
  if (node.pair != kNoNode && graph.contains(node.pair)) j["pair"] = graph.node(node.pair).name;
  if (node.checkpoint != Checkpoint::kNone) {
    j["checkpoint"] = std::string(checkpoint_name(node.checkpoint));
  }
  return j;
}

}  // namespace

Result<Graph> parse_graph_json(std::string_view text) {
  DTPLAN_TRY(Json doc, core::parse_json(text, ""));
  if (!doc.is_object()) return bad("expected a JSON object with a \"graph\" field");
  DTPLAN_CHECK(check_keys(doc, std::array{"name", "comment", "exporter", "graph"}, "model"));
  if (!doc.contains("graph")) return bad("field 'graph': missing");
  std::string name;
  if (doc.contains("name")) {
    DTPLAN_TRY(name, get_string(doc["name"], "field 'name'"));
  }
  return parse_graph_object(doc["graph"], std::move(name));
}

std::string graph_to_json(const Graph& graph) {
  std::string out = "{\n \"graph\": {\n  \"name\": " + dump(OJson(graph.name())) + ",\n";
  if (!graph.repeats().empty()) {
    OJson repeats = OJson::array();
    for (const RepeatGroup& g : graph.repeats()) repeats.push_back(g.layers);
    out += "  \"repeated_layers\": " + dump(repeats) + ",\n";
  }
  out += "  \"nodes\": [";
  for (std::size_t i = 0; i < graph.size(); ++i) {
    out += i == 0 ? "\n   " : ",\n   ";
    out += dump(node_to_json(graph, graph.nodes()[i]));
  }
  out += graph.size() == 0 ? "]\n }\n}\n" : "\n  ]\n }\n}\n";
  return out;
}

Result<Graph> read_graph_file(const std::string& path) {
  DTPLAN_TRY(std::string text, core::read_text_file(path, "graph file"));
  auto graph = parse_graph_json(text);
  if (!graph.ok()) return graph.error().with_context(path);
  return graph;
}

Status write_graph_file(const Graph& graph, const std::string& path) {
  return core::write_output_file(path, graph_to_json(graph), "graph file");
}

}  // namespace dtplan::graph
