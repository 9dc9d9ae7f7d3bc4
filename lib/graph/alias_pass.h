#pragma once
// insert_aliases(): AutoParallel's `_add_alias` (version "v2",
// docs/reference/strategy_selection.md §4.1). An `alias` node is inserted after every single-tensor
// node with two or more users and after every graph output, just before the producer's first user,
// and every user is rewired to it. An alias has all R/S options, so it is the one place where a
// redistribution shared by several consumers is paid.
//
// Rules dtplan fixes where the study leaves them open (documented, deterministic):
//   - a node that is both multi-user and a graph output gets one alias, not two; alias nodes and
//     tuple producers (read through getitem) get none, so the pass is idempotent;
//   - aliases placed before the same user follow that user's argument order;
//   - the alias is named "<producer>.alias" (then ".alias_1", ... if taken);
//   - its layer is the layer its users share (the output node not counted), else the producer's;
//     its phase is that of its first user other than the output node, else the producer's;
//   - for a graph output whose role is grad or output, the role and the pair move to the alias
//     (the alias is what the output node returns, as in AutoParallel's graph).
//
//   x(2 users: a, b)  ->  x, x.alias(users: a, b)

#include "core/result.h"
#include "graph/graph.h"

namespace dtplan::graph {

// @post every non-alias single-output node has at most one user, unless that user is an alias;
//   every input of the output node is an alias; the repeat annotation is carried over unchanged.
core::Result<Graph> insert_aliases(const Graph& graph);

}  // namespace dtplan::graph
