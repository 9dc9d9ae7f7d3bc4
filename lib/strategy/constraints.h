#pragma once
// Constraints of the strategy selection (docs/reference/strategy_selection.md §1.5): pinned output
// placements, forward/backward ties, and the per-rank memory budget.
//
// Defaults (default_constraints), AutoParallel's LLaMA3 example
// (docs/reference/strategy_selection.md §5.1) generalised to any mesh:
//   - model inputs (role input, e.g. tokens [B,S]): batch on mesh dim 0, Replicate elsewhere:
//       1-D "S(0)", 2-D "S(0),R", 3-D "S(0),R,R";
//   - model outputs (role output, e.g. logits [B,S,V]): batch on mesh dim 0 and the last tensor
//     dim (vocab parallel) on the last mesh dim, Replicate between:
//       1-D "S(0)", 2-D "S(0),S(2)", 3-D "S(0),R,S(2)";
//   - a pin the node cannot take (no strategy has it, e.g. a batch of 4 over a mesh dim of 8) is
//     left out, so small models still plan on large meshes;
//   - ties: a gradient has its parameter's placement, a tangent its output's, an input's
//     gradient its input's (docs/reference/strategy_selection.md §1.5 rule 5); a pin on one end of
//     a tie is copied to the other end.
// Every argument slot of a consumer is tied to its producer, also when one producer feeds two
// slots (`x * x`): that is not a constraint here but the shape of the exported problem (one edge
// per slot, selection_problem.h), which fixes AutoParallel's flow-constraint gap
// (docs/reference/strategy_selection.md §1.5 rule 3).
//
// Memory: without a budget, AutoParallel's default parameter constraint
// (docs/reference/strategy_selection.md §1.5 rule 9 with high = 1/world): every parameter at its
// smallest achievable per-rank size (full FSDP storage). With `memory_limit_bytes`, instead:
// parameters + gradients + optimizer state + saved activations per rank <= the limit
// (memory_model.h says what each counts).
//
//   Constraints c = default_constraints(graph, strategies, 2);
//   c.pins[0] == NodePin{tokens, {S(0), R}};

#include <cstdint>
#include <optional>
#include <vector>

#include "graph/graph.h"
#include "strategy/graph_strategies.h"
#include "strategy/strategy.h"

namespace dtplan::strategy {

// Output 0 of `node` must be laid out as `placements`, or, when `strategy` >= 0, the node takes
// exactly that strategy (placements unused).
struct NodePin {
  graph::NodeId node = graph::kNoNode;
  Placements placements;
  std::int32_t strategy = -1;
  bool operator==(const NodePin&) const = default;
};

// Output 0 of `follower` has the placements of output 0 of `leader`; the leader is the earlier
// node in graph order.
struct PairTie {
  graph::NodeId leader = graph::kNoNode;
  graph::NodeId follower = graph::kNoNode;
  bool operator==(const PairTie&) const = default;
};

// What the strategy selection does with the ops no pin or tie names.
enum class UnpinnedOps : std::uint8_t {
  kFree,   // the solver chooses them: the best execution of the pinned plan
  kLocal,  // each runs on its producers' layouts where it can (local_ops.h), the rest are free
};

struct Constraints {
  std::vector<NodePin> pins;  // graph order, at most one per node
  std::vector<PairTie> ties;  // by follower, graph order
  UnpinnedOps unpinned = UnpinnedOps::kFree;
  // Per-rank bytes of parameters + gradients + optimizer state + activations; nullopt: the
  // default parameter constraint above.
  std::optional<std::int64_t> memory_limit_bytes;
  bool operator==(const Constraints&) const = default;
};

// The default placement of a model input of tensor rank `rank` on a mesh of `mesh_ndim` dims
// (see above). Example: default_input_placements(2, 2) == {S(0), R}. @pre mesh_ndim >= 1.
Placements default_input_placements(std::size_t rank, std::size_t mesh_ndim);
// The same for a model output. Example: default_output_placements(3, 3) == {S(0), R, S(2)}.
Placements default_output_placements(std::size_t rank, std::size_t mesh_ndim);

// The defaults above for `graph` enumerated as `strategies` on a mesh of `mesh_ndim` dims.
// @post every pin is one the node can take; ties join nodes with equal option lists (or the
// tie is still listed: export_problem() then forbids the leader options the follower lacks).
Constraints default_constraints(const graph::Graph& graph, const GraphStrategies& strategies,
                                std::size_t mesh_ndim);

// Whether some strategy of `op` has output 0 laid out as `placements`.
bool offers(const OpStrategy& op, const Placements& placements);

}  // namespace dtplan::strategy
