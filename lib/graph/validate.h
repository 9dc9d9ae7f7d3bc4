#pragma once
// validate(): the semantic checks every graph passes before anything plans on it. Topological
// order and name uniqueness hold by construction (Graph::add_node); this checks, node by node:
//   - op: "other" carries a target and nothing else does; at most one output node, and it is last;
//   - inputs: counts within the op's range; no input is the output node; a producer with other
//     than one output is read only through getitem; getitem's index is in range;
//   - outputs: counts within the op's range, sizes >= 0, element counts fit in 64 bits, and equal
//     to what shape_infer.h infers from the inputs and attributes (where a rule exists);
//   - attrs: the names dtplan interprets have the right types;
//   - role / pair: placeholders have a placeholder role and nothing else does; pairs are mutual
//     and of matching kinds (param <-> grad, input <-> grad, output <-> tangent); a grad has one;
//   - layer >= -1, and the repeat annotation holds (layer_groups.h).
// The first failure is returned, naming the node and field:
//   "node 'mm_3' field 'outputs'[0]: declared bf16[16,4096], inferred bf16[16,8192]".

#include "core/result.h"
#include "graph/graph.h"

namespace dtplan::graph {

// @post ok iff every check above holds.
core::Status validate(const Graph& graph);

}  // namespace dtplan::graph
