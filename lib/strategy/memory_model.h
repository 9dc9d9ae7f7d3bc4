#pragma once
// The per-rank memory a strategy choice implies, as linear terms over the choices (one byte count
// per strategy of a node), so that the solver can budget it in a memory row and the plan can
// report it:
//   - parameters: each parameter placeholder's local bytes at its storage dtype (fp32);
//   - gradients: the same local element count at the gradient's dtype, since a gradient has its
//     parameter's placement (constraints.h); a parameter without a gradient has none;
//   - optimizer state: Adam's two fp32 states (exp_avg, exp_avg_sq) per local element of every
//     parameter with a gradient: 8 bytes per element;
//   - activations: the forward values the backward reads (AutoParallel's joint graph, study
//     docs/reference/strategy_selection.md §5.6), resolved to the node that owns their storage
//     (through views, aliases and getitem), at that node's local size; a value recomputed by
//     activation checkpointing (graph/recompute.h) is replaced by the forward values it is
//     recomputed from. All of them are live when the forward ends, so their sum is the activation
//     peak. Placeholders (parameters, buffers, inputs) are not activations. The graph is one
//     microbatch's, so these are one microbatch's activations (microbatches run one after another);
//   - accumulated gradients, with grad_accum > 1 and GradSync::kLastMicrobatch only: the
//     unsharded fp32 gradient every returned gradient holds between microbatches: its batch
//     reduction's output (graph::gradient_roots: a linear's grad-weight einsum, a norm's sum,
//     the embedding's backward) at its local size, 4 bytes an element, counted with the
//     gradients.
// Local sizes are those of mesh coordinate 0 (torch.chunk's largest piece; strategy.h), so the
// figures bound every rank. The peak per rank is the sum of all four.
//
//   auto terms = memory_terms(graph, strategies).value();
//   terms.parameters[0].param_bytes[label]  // bytes of that parameter under strategy `label`

#include <cstdint>
#include <span>
#include <vector>

#include "core/result.h"
#include "core/training.h"
#include "graph/graph.h"
#include "strategy/graph_strategies.h"

namespace dtplan::strategy {

// Adam: two fp32 states per parameter element.
inline constexpr std::int64_t kOptimizerStates = 2;
inline constexpr std::int64_t kOptimizerStateBytes = 4;

struct ParameterMemory {
  graph::NodeId param = graph::kNoNode;
  std::vector<std::int64_t> param_bytes;  // per strategy of the parameter
  std::vector<std::int64_t> grad_bytes;
  std::vector<std::int64_t> optimizer_bytes;
  bool operator==(const ParameterMemory&) const = default;
};

struct ActivationMemory {
  graph::NodeId node = graph::kNoNode;  // the storage owner
  std::vector<std::int64_t> bytes;      // per strategy of the node (its saved outputs)
  bool operator==(const ActivationMemory&) const = default;
};

struct MemoryTerms {
  std::vector<ParameterMemory> parameters;     // graph order
  std::vector<ActivationMemory> activations;   // graph order
  std::vector<ActivationMemory> accumulators;  // graph order: unsharded gradients kept, fp32
  bool operator==(const MemoryTerms&) const = default;
};

// @post error (kBadInput) only when a byte count overflows int64.
core::Result<MemoryTerms> memory_terms(const graph::Graph& graph, const GraphStrategies& strategies,
                                       const core::TrainingOptions& training = {});

// Per-rank totals for one choice per graph node (`choice[i]`: the strategy of node i; nodes
// without strategies are ignored).
struct MemoryTotals {
  std::int64_t parameter_bytes = 0;
  std::int64_t gradient_bytes = 0;  // accumulated gradients included
  std::int64_t optimizer_bytes = 0;
  std::int64_t activation_bytes = 0;
  std::int64_t peak_bytes = 0;
  bool operator==(const MemoryTotals&) const = default;
};
MemoryTotals memory_totals(const MemoryTerms& terms, std::span<const std::int32_t> choice);

}  // namespace dtplan::strategy
