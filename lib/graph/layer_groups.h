#pragma once
// Repeated-layer detection for graphs whose nodes carry layer ids (the builder's graphs, FX
// exports whose module paths name the layer): layers are grouped by a structural hash of their
// canonical form, then confirmed equal node by node. Two layers are isomorphic when their nodes,
// taken in graph order, agree one to one on op, target, attributes, output shapes and dtypes,
// phase, role and checkpoint tag, and on inputs: a producer inside the layer by its position in
// the layer, a producer outside it by the shape and dtype it supplies (so layer 0, fed by the
// embedding, matches layer 1, fed by layer 0). This is the periodicity AutoParallel's clustering
// exploits (docs/reference/strategy_selection.md §1.7), made exact.
//
//   find_repeated_layers(build_llama3(cfg_32_layers)) == {RepeatGroup{{0, 1, ..., 31}}}

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "graph/graph.h"

namespace dtplan::graph {

// The canonical form of one layer.
struct LayerForm {
  std::int32_t layer = -1;
  std::vector<NodeId> nodes;            // graph order
  std::vector<std::string> node_forms;  // canonical text per node, same order
  std::uint64_t hash = 0;               // FNV-1a over node_forms

  bool operator==(const LayerForm&) const = default;
};

// One form per layer id >= 0 present in the graph, ascending by layer id.
std::vector<LayerForm> layer_forms(const Graph& graph);

// Groups of two or more isomorphic layers, each ascending, ordered by their first layer.
// Layers that match no other layer are in no group.
std::vector<RepeatGroup> find_repeated_layers(const Graph& graph);

// Checks a repeat annotation against the graph: every group has two or more distinct layers in
// ascending order that exist, no layer is in two groups, and the layers of a group are
// isomorphic. Errors name the group and the first differing node:
// "graph field 'repeated_layers'[0]: layer 3 differs from layer 0 at node 12 of the layer
// ('layers.3.x' vs 'layers.0.x')".
core::Status check_repeats(const Graph& graph, const std::vector<RepeatGroup>& repeats);

// The layer-independent signature of a node (op, target, attributes, outputs, phase, role,
// checkpoint, and the shape and dtype each input slot supplies); the unit of the structural
// hashing that infers layers for graphs without layer ids (repeat_regions.h).
std::string node_signature(const Graph& graph, NodeId id);

}  // namespace dtplan::graph
