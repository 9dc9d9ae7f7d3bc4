#pragma once
// What a training step runs besides the joint graph's ops once each, derived from the graph:
//   - recomputed_nodes(): the forward nodes that activation checkpointing runs a second time,
//     before the backward: a node tagged Checkpoint::kRecompute whose value a backward node reads,
//     directly or through other such nodes (PyTorch's non-reentrant checkpoint recomputes what
//     the backward unpacks and stops there). An alias node takes its producer's tag.
//     Placeholders are never recomputed; a value read by a recomputed node and not itself
//     recomputed is saved.
//   - gradient_nodes(): each returned gradient (role kGrad) and the ops before it back to its
//     batch reduction, through ops that only change layout or dtype (alias, cast, permute,
//     view): a linear's grad-weight einsum, permute and fp32 cast; a norm's sum and casts; the
//     embedding's backward and cast. An edge between two of them carries the gradient's
//     reduction (FSDP's reduce-scatter), which GradSync::kLastMicrobatch runs once per step;
//   - gradient_roots(): the first node of each such chain (the batch reduction), in graph
//     order: the unsharded gradient that accumulates between microbatches without sync.
//
//   auto g = build_llama3(config).value();              // checkpoint full
//   recomputed_nodes(g)[index_of(*g.find("layers.0.attention.wq.einsum"))] == 1
//   gradient_nodes(g)[index_of(*g.find("layers.0.bwd.attention.wq.grad_weight"))] == 1

#include <vector>

#include "graph/graph.h"

namespace dtplan::graph {

// Per node: 1 when it is recomputed (above), else 0.
std::vector<char> recomputed_nodes(const Graph& graph);

// Per node: 1 when it is a gradient node (above), else 0.
std::vector<char> gradient_nodes(const Graph& graph);

// The first node of each returned gradient's chain (above), ascending.
std::vector<NodeId> gradient_roots(const Graph& graph);

}  // namespace dtplan::graph
