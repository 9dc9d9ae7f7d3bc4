#pragma once
// Internal to lib/solve: the structural reductions of simplify() (see simplify.h for the rules),
// and the assembly of the reduced problem.
//
// Example: merge_followers on "v follows a with map {1, 0}" removes v, adds v's unary to a through
// the map (a's label 0 pays v's label 1), re-attaches v's edges to a, and records a kFollower
// LiftStep so that lift() sets v = map[a].

#include "core/result.h"
#include "solve/problem.h"
#include "solve/simplify.h"
#include "solve/simplify/work_graph.h"

namespace dtplan::solve::detail {

// Merges followers into leaders (deepest followers first, then by follower index); followers
// whose merge would differ between repeat blocks become 0/+inf edges instead.
// @post error (kUnsupported) when a leader keeps no label.
core::Status merge_followers(WorkGraph& g, const Problem& problem);

// Folds leaves and series nodes outside memory rows and repeat blocks, in node order; series folds
// whose lift table would exceed `max_table` entries (or whose work 64 times that) are skipped.
// @post true when something folded.
bool fold_chains(WorkGraph& g, double max_table);

// The reduced problem (alive nodes in original order, alive edges with renumbered slots, alive
// rows, repeat blocks renamed) and its remap.
Simplified finish(WorkGraph&& g);

}  // namespace dtplan::solve::detail
