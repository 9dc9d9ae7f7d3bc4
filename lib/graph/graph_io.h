#pragma once
// JSON form of a graph, the `{"graph": {...}}` model file that scripts/export_fx_graph.py writes:
//
//   {"name": "tiny", "exporter": {...},             <- optional model metadata
//    "graph": {"name": "tiny",
//              "repeated_layers": [[0, 1]],         <- optional: isomorphic layer ids
//              "nodes": [
//     {"name": "x", "op": "placeholder", "role": "input",
//      "outputs": [{"shape": [4, 8], "dtype": "bf16"}], "phase": "forward", "layer": -1},
//     {"name": "y", "op": "sum", "inputs": ["x"], "attrs": {"dim": [1], "keepdim": true},
//      "outputs": [{"shape": [4, 1], "dtype": "bf16"}], "phase": "forward", "layer": -1},
//     {"name": "output", "op": "output", "inputs": ["y"], "outputs": [], "phase": "backward",
//      "layer": -1}]}}
//
// Node fields: name, op (op_kind.h spelling; "other" plus "target" for anything else), inputs
// (producer names in argument order, repeats kept), outputs (one {shape, dtype} per tensor; for a
// tuple, its tensor elements in order, and getitem's "index" counts in that list), attrs
// (attributes.h; non-finite numbers are written "inf", "-inf", "nan"), phase (default forward),
// layer (default -1), role, pair (a node name), checkpoint. Unknown fields are errors. A read
// graph is validated (validate.h); errors name the node and field:
//   "node 'mm_3' field 'inputs'[1]: unknown node 'x_9'".

#include <string>
#include <string_view>

#include "core/result.h"
#include "graph/graph.h"

namespace dtplan::graph {

// Parses and validates a graph document. Top-level keys: "graph" (required), "name", "comment",
// "exporter". Errors are not prefixed with a file name (callers add it).
core::Result<Graph> parse_graph_json(std::string_view text);

// The document for `graph`, one node per line, keys in the order listed above, fields equal to
// their defaults left out (inputs, attrs, role, pair, checkpoint). Deterministic byte for byte.
// @post parse_graph_json(graph_to_json(g)) == g for every valid g.
std::string graph_to_json(const Graph& graph);

// File wrappers; errors are prefixed with the path.
core::Result<Graph> read_graph_file(const std::string& path);
core::Status write_graph_file(const Graph& graph, const std::string& path);

}  // namespace dtplan::graph
