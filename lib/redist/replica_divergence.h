#pragma once
// Where a plan may leave replicas that differ bitwise (PyTorch #171916,
// docs/reference/placements.md §7): a floating-point sum or average that reduces equal inputs in
// several process groups that sit on nodes differently. NCCL gives every member of ONE reduction
// the same bits, but it picks each communicator's algorithm and ring from the node structure of its
// ranks, so two groups with the same values and different node structures may add them in different
// orders.
//
// A reduction step (all_reduce or reduce_scatter, on one mesh dim or a flattened mesh) reduces
// equal inputs in two of its groups when the groups differ only on mesh dims that hold Replicate
// (size > 1) in the state before the step: those ranks hold the same values, and their results
// stay replicas. Two groups reduce alike when, position by position, their ranks have the same
// node (numbered in the order of first appearance, node = rank / GPUs per node) and the same
// place among their node's members by global rank: the node structure, ring and tree NCCL builds
// (and the fake process group models, sim/reduction_order.h) are then the same. So:
//
//   mesh 7,1,6 (B,C,D), 8 GPUs per node, P(sum),P(sum),P(sum) -> R,S(0),R
//     all_reduce(B), reduce_scatter(C), all_reduce(D): all_reduce(D) reduces the equal inputs of
//     groups 0..5 (one node) and 6..11 (2 + 4 ranks on two nodes) -> warned
//     one all_reduce over the flattened mesh B_D: a single group -> nothing to warn
//   mesh 2,2, P(sum),P(sum) -> R,R with 8 GPUs per node: every group on one node -> nothing
//
// Integer sums (wrap-around) and max/min are exact in any order and never warn. The check may
// warn where the data happen to reduce alike, or where a later step makes the results no longer
// replicas (a chunk of the replicated dim); it does not miss: --verify reports divergent replicas
// only for plans it warned about (the soak, tests/soak, checks this on random plans).

#include <span>
#include <vector>

#include "core/dtype.h"
#include "core/result.h"
#include "redist/mesh_context.h"
#include "redist/redist_state.h"
#include "redist/transform.h"
#include "redist/warnings.h"

namespace dtplan::redist {

// One kDivergentReplicas warning per reduction step (mesh dims) that may diverge, in plan order.
// @pre `steps` apply in order from `start` (apply_transform); errors (kBadInput) otherwise, and
//   for a flattened step naming a mesh the context lacks.
core::Result<std::vector<Warning>> divergence_warnings(const MeshContext& mesh, core::DType dtype,
                                                       const RedistState& start,
                                                       std::span<const Transform> steps);

}  // namespace dtplan::redist
