#pragma once
// torchtitan_pins(): torchtitan's parallelize_llama for LLaMA3 compiled to pin rules
// (pin_rules.h), from the roles of the mesh's dim names (docs/parallelize.md has the table):
//
//   dp_shard (or dp)  FSDP2: every parameter Shard(0); where TP already shards dim 0 (colwise
//                     weights, embedding, output) _StridedShard(0, sf = tp size) when dp_shard
//                     comes before tp, as FSDP2 writes it; tokens, activations and input
//                     gradients batch-sharded S(0), weight gradients Partial (FSDP's
//                     reduce-scatter follows); the linears' and the embedding's outputs pinned
//                     batch-sharded is what makes FSDP gather each weight before its op
//   dp_replicate      HSDP replicas: parameters Replicate; the rest as dp_shard
//   tp                ColwiseParallel wq/wk/wv/w1/w3 (weight S(0), output S(-1)), RowwiseParallel
//                     wo/w2 (weight S(1), output Partial before its reduce-scatter), sequence
//                     parallel residual stream (and its gradient) and norm outputs (S(1)), norm
//                     weights Replicate, embedding and output weights vocab-sharded S(0), the
//                     embedding's output Partial, loss-parallel logits S(2), and the backward
//                     linears as the mirror of the forward
//   cp                context parallel: tokens, activations and input gradients sequence-sharded
//                     S(1) (cp splits before tp's sequence parallel); parameters FSDP-sharded
//                     over dp_shard x cp (Shard(0), or _StridedShard as on dp_shard); weight
//                     gradients Partial; the SDPA forward output and dq S(2) (ring attention:
//                     the attention rule's sequence row, which the enumeration offers on
//                     context_parallel_dims() only); K and V whole on cp before GQA repeats
//                     their heads (ring attention gathers n_kv_heads)
//   module boundaries the redistributions torchtitan makes between the styles: the norm output
//                     gathered on tp once per module input (PrepareModuleInput), the embedding's
//                     output reduce-scattered, the residual gradient gathered once for a rowwise
//                     linear's backward, a module input's gradient reduce-scattered on bf16, the
//                     norm weights' gradients all-reduced on tp before FSDP's fp32 cast, and
//                     FSDP2's unshard (the op reading a weight takes the whole TP-local weight)
//
// The set's `unpinned` is UnpinnedOps::kLocal: every op between these boundaries runs on the
// layouts its producers hand it, as DTensor runs it (local_ops.h); the solver chooses only the
// ops where no layout follows.
//
//   auto pins = torchtitan_pins({"dp_shard", "tp"}, {4, 2}, llama3_config).value();
//   pins.rules[0].name == "attention.colwise", placements _S(0,2),S(0)
//
// Errors: a dim name with no torchtitan role or a role given twice (kBadInput); a tp size that
// does not divide n_heads or n_kv_heads (kBadInput, naming rule 'attention.colwise'); with cp, a
// seq_len not divisible by 2·cp·tp (kBadInput, naming rule 'tokens'). Messages start with
// "--parallelize torchtitan".

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/result.h"
#include "graph/llama3_config.h"
#include "strategy/pin_rules.h"

namespace dtplan::strategy {

// The mesh dim roles torchtitan names.
enum class MeshRole : std::uint8_t { kDpReplicate, kDpShard, kCp, kTp };

// The role of a dim name ("dp" is dp_shard); error (kBadInput) for any other name.
core::Result<MeshRole> parse_mesh_role(std::string_view name);

// @pre names.size() == sizes.size().
core::Result<PinSet> torchtitan_pins(const std::vector<std::string>& names,
                                     std::span<const std::int64_t> sizes,
                                     const graph::Llama3Config& config);

// The mesh dims whose role is cp (EnumerateOptions::context_parallel_dims), ascending.
std::vector<std::int32_t> context_parallel_dims(const std::vector<std::string>& names);

}  // namespace dtplan::strategy
