#include "graph/layer_groups.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "core/hash.h"

namespace dtplan::graph {
namespace {

// Everything about a node except its name, layer, inputs and pair.
void append_core(std::string& out, const Node& node) {
  out += op_name(node.op);
  if (!node.target.empty()) out += "<" + node.target + ">";
  out += '{';
  for (const auto& [name, value] : node.attrs.entries()) {
    out += name;
    out += '=';
    out += format_attr_value(value);
    out += ';';
  }
  out += "}->";
  for (const TensorMeta& m : node.outputs) {
    out += format_meta(m);
    out += ',';
  }
  out += '|';
  out += phase_name(node.phase);
  out += '|';
  out += core::graph_role_name(node.role);
  out += '|';
  out += checkpoint_name(node.checkpoint);
}

// What producer `p` supplies to a consumer slot: its outputs' shapes and dtypes.
void append_supplied(std::string& out, const Node& producer) {
  for (const TensorMeta& m : producer.outputs) {
    out += format_meta(m);
    out += '+';
  }
}

}  // namespace

std::string node_signature(const Graph& graph, NodeId id) {
  const Node& node = graph.node(id);
  std::string out;
  append_core(out, node);
  out += "(";
  for (NodeId in : node.inputs) {
    append_supplied(out, graph.node(in));
    out += ';';
  }
  out += ")";
  return out;
}

std::vector<LayerForm> layer_forms(const Graph& graph) {
  std::map<std::int32_t, LayerForm> by_layer;
  std::vector<std::int32_t> local(graph.size(), -1);  // position of a node within its layer
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const Node& node = graph.nodes()[i];
    if (node.layer < 0) continue;
    LayerForm& form = by_layer[node.layer];
    form.layer = node.layer;
    local[i] = static_cast<std::int32_t>(form.nodes.size());
    form.nodes.push_back(node_id(i));
  }
  std::vector<LayerForm> out;
  out.reserve(by_layer.size());
  for (auto& [layer, form] : by_layer) {
    form.node_forms.reserve(form.nodes.size());
    std::uint64_t h = core::fnv1a("layer");
    for (NodeId id : form.nodes) {
      const Node& node = graph.node(id);
      std::string text;
      append_core(text, node);
      text += '(';
      for (NodeId in : node.inputs) {
        const Node& producer = graph.node(in);
        if (producer.layer == layer) {
          text += 'L';
          text += std::to_string(local[index_of(in)]);
        } else {
          text += 'E';
          append_supplied(text, producer);
        }
        text += ';';
      }
      text += ')';
      if (node.pair != kNoNode && graph.contains(node.pair)) {
        const Node& partner = graph.node(node.pair);
        text += 'P';
        text += partner.layer == layer ? std::to_string(local[index_of(node.pair)]) : "E";
      }
      h = core::fnv1a(text, h);
      h = core::fnv1a("\n", h);
      form.node_forms.push_back(std::move(text));
    }
    form.hash = h;
    out.push_back(std::move(form));
  }
  return out;
}

std::vector<RepeatGroup> find_repeated_layers(const Graph& graph) {
  std::vector<LayerForm> forms = layer_forms(graph);
  // Buckets by hash, then exact comparison against each bucket's representatives; layers are
  // visited in ascending order, so every group lists its layers ascending and groups are created
  // in the order of their first layer.
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> buckets;  // hash -> group indices
  std::vector<std::vector<std::size_t>> groups;                         // indices into forms
  for (std::size_t i = 0; i < forms.size(); ++i) {
    auto& candidates = buckets[forms[i].hash];
    bool placed = false;
    for (std::size_t g : candidates) {
      if (forms[groups[g].front()].node_forms == forms[i].node_forms) {
        groups[g].push_back(i);
        placed = true;
        break;
      }
    }
    if (!placed) {
      candidates.push_back(groups.size());
      groups.push_back({i});
    }
  }
  std::vector<RepeatGroup> out;
  for (const auto& g : groups) {
    if (g.size() < 2) continue;
    RepeatGroup group;
    for (std::size_t i : g) group.layers.push_back(forms[i].layer);
    out.push_back(std::move(group));
  }
  return out;
}

core::Status check_repeats(const Graph& graph, const std::vector<RepeatGroup>& repeats) {
  if (repeats.empty()) return {};
  std::vector<LayerForm> forms = layer_forms(graph);
  std::map<std::int32_t, std::size_t> form_of;
  for (std::size_t i = 0; i < forms.size(); ++i) form_of[forms[i].layer] = i;
  std::map<std::int32_t, std::size_t> group_of;
  for (std::size_t g = 0; g < repeats.size(); ++g) {
    const std::string field = "graph field 'repeated_layers'[" + std::to_string(g) + "]";
    const auto& layers = repeats[g].layers;
    if (layers.size() < 2) {
      return core::Error::bad_input(field + ": a group needs at least two layers");
    }
    for (std::size_t i = 0; i < layers.size(); ++i) {
      const std::int32_t layer = layers[i];
      if (i > 0 && layers[i - 1] >= layer) {
        return core::Error::bad_input(field + ": layers must be distinct and ascending");
      }
      if (!form_of.contains(layer)) {
        return core::Error::bad_input(field + ": no node has layer " + std::to_string(layer));
      }
      if (auto [it, fresh] = group_of.emplace(layer, g); !fresh) {
        return core::Error::bad_input(field + ": layer " + std::to_string(layer) +
                                      " is already in group " + std::to_string(it->second));
      }
      if (i == 0) continue;
      const LayerForm& base = forms[form_of[layers[0]]];
      const LayerForm& form = forms[form_of[layer]];
      const std::size_t n = std::min(base.nodes.size(), form.nodes.size());
      std::size_t at = 0;
      while (at < n && base.node_forms[at] == form.node_forms[at]) ++at;
      if (at == n && base.nodes.size() == form.nodes.size()) continue;
      std::string where = at < n ? " at node " + std::to_string(at) + " of the layer ('" +
                                       graph.node(form.nodes[at]).name + "' vs '" +
                                       graph.node(base.nodes[at]).name + "')"
                                 : " in node count (" + std::to_string(form.nodes.size()) + " vs " +
                                       std::to_string(base.nodes.size()) + ")";
      return core::Error::bad_input(field + ": layer " + std::to_string(layer) +
                                    " differs from layer " + std::to_string(layers[0]) + where);
    }
  }
  return {};
}

}  // namespace dtplan::graph
