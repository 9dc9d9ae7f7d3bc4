#pragma once
// Layer inference for graphs without layer ids (a hand-written graph, an FX export whose module
// paths do not name layers), in the spirit of AutoParallel's clustering
// (docs/reference/strategy_selection.md §1.7): nodes are hashed structurally (node_signature(): op,
// attributes, shapes, phase, role, and the shapes each input supplies; names and layer ids
// ignored), and runs of nodes that repeat are grown around anchors, then tied into layers by their
// data edges.
//
// The algorithm, deterministic at every step:
//   1. Nodes whose signature occurs once (among unclaimed nodes) are skipped: they cannot repeat
//      (e.g. the alias of a buffer every layer reads).
//   2. For each signature occurring k >= 2 times, its occurrences anchor k copies; each copy is
//      grown backwards and forwards while all copies see equal signatures, without overlapping
//      the neighbouring copy. The anchor covering the most nodes (k x length; ties: longer
//      blocks, then the earliest start) is claimed as a group of k blocks. Repeat while a block
//      of at least two nodes can be found.
//   3. The largest group defines the layers (block j = layer j). Any other group with the same
//      number of blocks whose blocks map one to one onto those layers by the most data edges
//      (ties: lower layer) joins them: this collects a layer's parameters, forward, backward and
//      gradient aliases. Groups that do not join become layers of their own when their blocks
//      have at least 8 nodes; smaller coincidental repeats are left outside every layer.
//   4. Layers are numbered in the order of their first node.
// The result is verified with find_repeated_layers() (layer_groups.h), so only exactly
// isomorphic layers end up in the repeat annotation.

#include <cstdint>
#include <vector>

#include "graph/graph.h"

namespace dtplan::graph {

struct InferredLayers {
  std::vector<std::int32_t> layer_of;  // per node; -1 outside every repeated region
  std::int32_t layers = 0;             // ids 0 .. layers-1 are used

  bool operator==(const InferredLayers&) const = default;
};

InferredLayers infer_layers(const Graph& graph);

// `graph` with every node's layer replaced by infer_layers() and the repeat annotation recomputed.
// Example: stripping the layer ids of build_llama3(cfg) and calling this restores them.
Graph with_inferred_layers(const Graph& graph);

}  // namespace dtplan::graph
