#pragma once
// build_llama3(): the joint forward+backward graph of a LLaMA3 training step at aten granularity,
// as AutoParallel traces it (docs/reference/strategy_selection.md §5.3-§5.6): fp32 parameters cast
// to bf16 by `dtype_cast`, RMSNorm decomposed (convert, pow, mean, add eps, rsqrt, mul, mul weight,
// convert), RoPE through view_as_complex, repeat_kv (unsqueeze, expand, clone, view),
// cuDNN/flash/efficient SDPA read through getitem, SwiGLU (sigmoid, mul), every linear as the
// einsum rewrite (dtype_cast, permute, einsum "abk,kn->abn"), the vocab projection, the logits
// tangent; then the backward in reverse (grad-input einsum "abn,nk->abk", grad-weight einsum
// "abn,abk->kn" + permute + dtype_cast to fp32, fan-in adds, decomposed RMSNorm/SiLU/RoPE/repeat_kv
// backward, SDPA backward, embedding_dense_backward); then alias nodes (alias_pass.h).
//
// Node order follows the AOT joint graph: placeholders (parameters in named_parameters order,
// the freqs_cis buffer, tokens, the logits tangent), forward ops, backward ops, the output node
// (logits, then one gradient per parameter in parameter order). Names follow module paths:
// "layers.3.attention.wq.weight", "layers.3.attention.wq.einsum",
// "layers.3.attention.wq.grad_input" ...; backward nodes carry ".bwd" in their scope.
// Layer i's parameters, forward and backward nodes (and their aliases) have layer id i; the
// embedding, final norm, output projection and loss-side nodes have -1. The annotation lists all
// layers as one repeat group. Activation checkpointing (selective_op, full) only tags forward
// layer nodes (docs/reference/strategy_selection.md §5.6: the joint graph is the same with or
// without it). The graph is one microbatch's: its batch is config.batch / config.grad_accum. With
// config.float8 (torchao, docs/reference/torchtitan.md §6) the seven linears of every block are
// converted: their three einsums (forward, grad_input, grad_weight_t) carry {"float8": true}, which
// the compute cost prices at the fp8 rate (strategy/float8_cost.h), and under tensorwise their
// weights' dtype_cast targets fp8 (f8e4m3) instead of bf16, so an FSDP all-gather of the cast
// weight moves 1 byte per element; `output`, the embedding and the norm weights stay bf16. Under
// selective_op checkpointing the float8 linears' outputs are all recomputed
// (docs/reference/torchtitan.md §5).
//
//   auto g = build_llama3(Llama3Config{});  // 8B, B=16, S=8192
//   g->node(*g->find("layers.0.attention.sdpa")).outputs[0] == bf16[16,32,8192,128]

#include "core/result.h"
#include "graph/graph.h"
#include "graph/llama3_config.h"

namespace dtplan::graph {

// @post the graph passes validate(); error (kBadInput/kUnsupported) when the config does not.
core::Result<Graph> build_llama3(const Llama3Config& config);

}  // namespace dtplan::graph
