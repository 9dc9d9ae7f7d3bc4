#include "graph/llama3_builder.h"

#include <vector>

#include "graph/alias_pass.h"
#include "graph/llama3_parts.h"

namespace dtplan::graph {
namespace llama3 {

using core::DType;
using K = OpKind;
using Ints = std::vector<std::int64_t>;

Dims dims_of(const Llama3Config& c) {
  const std::int64_t hd = llama3_head_dim(c);
  return Dims{llama3_microbatch(c),
              c.seq_len,
              c.dim,
              c.n_heads,
              c.n_kv_heads,
              hd,
              llama3_ffn_dim(c),
              c.vocab_size,
              llama3_max_seq_len(c)};
}

SdpaKinds sdpa_kinds(AttentionKernel k) {
  switch (k) {
    case AttentionKernel::kFlash:
      return {K::kSdpaFlash, K::kSdpaFlashBackward};
    case AttentionKernel::kEfficient:
      return {K::kSdpaEfficient, K::kSdpaEfficientBackward};
    case AttentionKernel::kCudnn:
      break;
  }
  return {K::kSdpaCudnn, K::kSdpaCudnnBackward};
}

Attributes linear_einsum_attrs(const std::string& equation, bool float8) {
  Attributes a{{"equation", equation}};
  if (float8) a.set("float8", true);
  return a;
}

namespace {

// dtype_cast(W) -> permute -> einsum "abk,kn->abn". A float8 linear
// (docs/reference/torchtitan.md §6) tags its einsums; under tensorwise its weight is cast to fp8
// (e4m3) instead of bf16, so an FSDP all-gather of the cast weight moves 1 byte per element.
LinearSaved linear(GraphBuilder& b, const std::string& prefix, NodeId x, NodeId w,
                   core::Float8Recipe float8 = core::Float8Recipe::kNone) {
  LinearSaved s;
  s.prefix = prefix;
  s.weight = w;
  s.x = x;
  s.float8 = float8 != core::Float8Recipe::kNone;
  const DType weight_dtype =
      float8 == core::Float8Recipe::kTensorwise ? DType::kF8E4M3 : DType::kBF16;
  NodeId cast = b.op(K::kDtypeCast, prefix + ".weight_cast", {w}, to_dtype(weight_dtype));
  s.weight_t = b.op(K::kPermute, prefix + ".weight_t", {cast}, {{"dims", Ints{1, 0}}});
  s.out = b.op(K::kEinsum, prefix + ".einsum", {x, s.weight_t},
               linear_einsum_attrs("abk,kn->abn", s.float8));
  return s;
}

// convert(x -> f32) -> pow 2 -> mean(last dim, keepdim) -> add eps -> rsqrt -> mul -> mul weight
// -> convert(bf16).
RmsSaved rms_norm(GraphBuilder& b, const std::string& prefix, NodeId x, NodeId w, double eps) {
  RmsSaved s;
  s.weight = w;
  s.weight_bf16 = b.op(K::kDtypeCast, prefix + ".weight_cast", {w}, to_dtype(DType::kBF16));
  NodeId x32 = b.op(K::kToCopy, prefix + ".to_f32", {x}, to_dtype(DType::kF32));
  NodeId sq = b.op(K::kPow, prefix + ".pow", {x32}, {{"exponent", std::int64_t{2}}});
  const auto last = static_cast<std::int64_t>(b.meta(x).shape.size()) - 1;
  NodeId mean = b.op(K::kMean, prefix + ".mean", {sq}, {{"dim", Ints{last}}, {"keepdim", true}});
  NodeId var = b.op(K::kAdd, prefix + ".add_eps", {mean}, {{"other", eps}});
  s.rsqrt = b.op(K::kRsqrt, prefix + ".rsqrt", {var});
  s.normed = b.op(K::kMul, prefix + ".normed", {x32, s.rsqrt});
  NodeId scaled = b.op(K::kMul, prefix + ".mul_weight", {s.normed, s.weight_bf16});
  s.out = b.op(K::kToCopy, prefix + ".to_bf16", {scaled}, to_dtype(DType::kBF16));
  return s;
}

// x [B,S,h,hd] -> f32 -> [B,S,h,hd/2,2] -> complex -> * freqs -> real -> [B,S,h,hd] -> bf16.
RopeSaved rope(GraphBuilder& b, const Dims& d, const std::string& prefix, NodeId x,
               std::int64_t heads, NodeId freqs) {
  RopeSaved s;
  s.freqs = freqs;
  s.heads = heads;
  NodeId x32 = b.op(K::kToCopy, prefix + ".to_f32", {x}, to_dtype(DType::kF32));
  NodeId pairs =
      b.op(K::kView, prefix + ".view_pairs", {x32}, {{"size", Ints{d.b, d.s, heads, d.hd / 2, 2}}});
  NodeId cx = b.op(K::kViewAsComplex, prefix + ".view_as_complex", {pairs});
  NodeId rot = b.op(K::kMul, prefix + ".mul_freqs", {cx, freqs});
  NodeId re = b.op(K::kViewAsReal, prefix + ".view_as_real", {rot});
  NodeId flat = b.op(K::kView, prefix + ".flatten", {re}, {{"size", Ints{d.b, d.s, heads, d.hd}}});
  s.out = b.op(K::kToCopy, prefix + ".to_bf16", {flat}, to_dtype(DType::kBF16));
  return s;
}

// [B,S,kv,hd] -> unsqueeze(3) -> expand [B,S,kv,rep,hd] -> clone -> view [B,S,H,hd].
NodeId repeat_kv(GraphBuilder& b, const Dims& d, const std::string& prefix, NodeId x) {
  if (d.kv == d.h) return x;  // torchtitan returns x unchanged when n_rep == 1
  NodeId u = b.op(K::kUnsqueeze, prefix + ".unsqueeze", {x}, {{"dim", std::int64_t{3}}});
  NodeId e =
      b.op(K::kExpand, prefix + ".expand", {u}, {{"size", Ints{d.b, d.s, d.kv, d.h / d.kv, d.hd}}});
  NodeId c = b.op(K::kClone, prefix + ".clone", {e});
  return b.op(K::kView, prefix + ".view", {c}, {{"size", Ints{d.b, d.s, d.h, d.hd}}});
}

LayerSaved layer_forward(GraphBuilder& b, const Llama3Config& c, const Dims& d, std::int32_t i,
                         const LayerParams& p, NodeId x, NodeId freqs_buffer) {
  LayerSaved s;
  s.layer = i;
  s.prefix = "layers." + std::to_string(i);
  s.params = p;
  b.scope(s.prefix, i, Phase::kForward);

  // attention
  s.attention_norm = rms_norm(b, "attention_norm", x, p.attention_norm, c.norm_eps);
  NodeId xn = s.attention_norm.out;
  s.wq = linear(b, "attention.wq", xn, p.wq, c.float8);
  s.wk = linear(b, "attention.wk", xn, p.wk, c.float8);
  s.wv = linear(b, "attention.wv", xn, p.wv, c.float8);
  NodeId q = b.op(K::kView, "attention.q_view", {s.wq.out}, {{"size", Ints{d.b, d.s, d.h, d.hd}}});
  NodeId k = b.op(K::kView, "attention.k_view", {s.wk.out}, {{"size", Ints{d.b, d.s, d.kv, d.hd}}});
  NodeId v = b.op(K::kView, "attention.v_view", {s.wv.out}, {{"size", Ints{d.b, d.s, d.kv, d.hd}}});
  NodeId freqs = freqs_buffer;
  if (d.s < d.smax) {
    freqs = b.op(K::kSlice, "attention.freqs_slice", {freqs_buffer},
                 {{"dim", std::int64_t{0}}, {"start", std::int64_t{0}}, {"end", d.s}});
  }
  freqs = b.op(K::kView, "attention.freqs_view", {freqs}, {{"size", Ints{1, d.s, 1, d.hd / 2}}});
  s.q_rope = rope(b, d, "attention.q_rope", q, d.h, freqs);
  s.k_rope = rope(b, d, "attention.k_rope", k, d.kv, freqs);
  NodeId kr = repeat_kv(b, d, "attention.k_repeat", s.k_rope.out);
  NodeId vr = repeat_kv(b, d, "attention.v_repeat", v);
  const Attributes heads_first{{"dims", Ints{0, 2, 1, 3}}};
  s.xq = b.op(K::kPermute, "attention.q_permute", {s.q_rope.out}, heads_first);
  s.xk = b.op(K::kPermute, "attention.k_permute", {kr}, heads_first);
  s.xv = b.op(K::kPermute, "attention.v_permute", {vr}, heads_first);
  // Outputs as the study lists them: out, logsumexp f32 [B,H,S], RNG seed and offset.
  std::vector<TensorMeta> sdpa_out = {{{d.b, d.h, d.s, d.hd}, DType::kBF16},
                                      {{d.b, d.h, d.s}, DType::kF32},
                                      {{}, DType::kI64},
                                      {{}, DType::kI64}};
  Attributes sdpa_attrs{{"is_causal", true}, {"dropout_p", 0.0}};
  if (c.attention != AttentionKernel::kFlash) sdpa_attrs.set("compute_log_sumexp", true);
  s.sdpa = b.op(sdpa_kinds(c.attention).forward, "attention.sdpa", {s.xq, s.xk, s.xv}, sdpa_attrs,
                sdpa_out);
  s.attn = b.getitem(s.sdpa, 0, "attention.sdpa_out");
  s.lse = b.getitem(s.sdpa, 1, "attention.sdpa_lse");
  s.seed = b.getitem(s.sdpa, 2, "attention.sdpa_seed");
  s.offset = b.getitem(s.sdpa, 3, "attention.sdpa_offset");
  NodeId ot = b.op(K::kPermute, "attention.out_permute", {s.attn}, heads_first);
  NodeId oc = b.op(K::kClone, "attention.out_contiguous", {ot});
  NodeId of = b.op(K::kView, "attention.out_view", {oc}, {{"size", Ints{d.b, d.s, d.d}}});
  s.wo = linear(b, "attention.wo", of, p.wo, c.float8);
  NodeId h = b.op(K::kAdd, "attention_residual", {x, s.wo.out});

  // feed-forward: w2(silu(w1(x)) * w3(x))
  s.ffn_norm = rms_norm(b, "ffn_norm", h, p.ffn_norm, c.norm_eps);
  NodeId hn = s.ffn_norm.out;
  s.w1 = linear(b, "feed_forward.w1", hn, p.w1, c.float8);
  s.silu_in_f32 = b.op(K::kToCopy, "feed_forward.silu.to_f32", {s.w1.out}, to_dtype(DType::kF32));
  NodeId sig = b.op(K::kSigmoid, "feed_forward.silu.sigmoid", {s.silu_in_f32});
  NodeId act = b.op(K::kMul, "feed_forward.silu.mul", {s.silu_in_f32, sig});
  s.silu_out = b.op(K::kToCopy, "feed_forward.silu.to_bf16", {act}, to_dtype(DType::kBF16));
  s.w3 = linear(b, "feed_forward.w3", hn, p.w3, c.float8);
  s.w3_out = s.w3.out;
  NodeId gated = b.op(K::kMul, "feed_forward.gate", {s.silu_out, s.w3_out});
  s.w2 = linear(b, "feed_forward.w2", gated, p.w2, c.float8);
  s.out = b.op(K::kAdd, "ffn_residual", {h, s.w2.out});
  return s;
}

// Activation checkpointing of one block (torchtitan wraps each TransformerBlock): every forward
// node of the block is recomputed except, under op-level SAC, the outputs of the matmuls
// (einsums) and of attention, where every second matmul of the block is recomputed too. Under
// both modes the block's output is kept: it is the next block's input, which that block's
// checkpoint saves (the last block's feeds the final norm, outside any checkpoint). Float8
// linears run _scaled_mm, which torchtitan's op-SAC list does not save
// (docs/reference/torchtitan.md §5), so under op-level SAC their outputs are all recomputed.
void tag_checkpoints(GraphBuilder& b, std::size_t first_node, const LayerSaved& s,
                     CheckpointPolicy policy) {
  const std::size_t end = b.graph().size();
  for (std::size_t i = first_node; i < end; ++i)
    b.set_checkpoint(node_id(i), Checkpoint::kRecompute);
  b.set_checkpoint(s.out, Checkpoint::kSave);
  if (policy != CheckpointPolicy::kSelectiveOp) return;
  int matmuls = 0;
  for (const LinearSaved* l : {&s.wq, &s.wk, &s.wv, &s.wo, &s.w1, &s.w3, &s.w2}) {
    ++matmuls;
    if (matmuls % 2 == 1 && !l->float8) b.set_checkpoint(l->out, Checkpoint::kSave);
  }
  b.set_checkpoint(s.sdpa, Checkpoint::kSave);
}

}  // namespace
}  // namespace llama3

core::Result<Graph> build_llama3(const Llama3Config& c) {
  using namespace llama3;  // NOLINT: internal pieces of this builder
  DTPLAN_CHECK(validate_llama3_config(c));
  const Dims d = dims_of(c);
  const auto n_layers = static_cast<std::int32_t>(c.n_layers);
  GraphBuilder b(c.name);
  b.reserve(static_cast<std::size_t>(64 + 210 * n_layers));  // ~202 nodes per layer before aliases

  // Placeholders in AOT order: parameters (named_parameters order), buffer, input, tangent.
  auto param = [&](const std::string& name, Shape shape) {
    return b.placeholder(name, core::OpRole::kParam, TensorMeta{std::move(shape), DType::kF32});
  };
  b.scope("", -1, Phase::kForward);
  NodeId tok_embeddings = param("tok_embeddings.weight", {d.v, d.d});
  std::vector<LayerParams> params(static_cast<std::size_t>(n_layers));
  for (std::int32_t i = 0; i < n_layers; ++i) {
    b.scope("", i, Phase::kForward);
    const std::string l = "layers." + std::to_string(i) + ".";
    LayerParams& p = params[static_cast<std::size_t>(i)];
    p.wq = param(l + "attention.wq.weight", {d.d, d.d});
    p.wk = param(l + "attention.wk.weight", {d.kv * d.hd, d.d});
    p.wv = param(l + "attention.wv.weight", {d.kv * d.hd, d.d});
    p.wo = param(l + "attention.wo.weight", {d.d, d.d});
    p.w1 = param(l + "feed_forward.w1.weight", {d.f, d.d});
    p.w2 = param(l + "feed_forward.w2.weight", {d.d, d.f});
    p.w3 = param(l + "feed_forward.w3.weight", {d.f, d.d});
    p.attention_norm = param(l + "attention_norm.weight", {d.d});
    p.ffn_norm = param(l + "ffn_norm.weight", {d.d});
  }
  b.scope("", -1, Phase::kForward);
  NodeId norm_weight = param("norm.weight", {d.d});
  NodeId output_weight = param("output.weight", {d.v, d.d});
  NodeId freqs =
      b.placeholder("freqs_cis", core::OpRole::kBuffer, {{d.smax, d.hd / 2}, DType::kC64});
  NodeId tokens = b.placeholder("tokens", core::OpRole::kInput, {{d.b, d.s}, DType::kI64});
  b.scope("", -1, Phase::kBackward);
  NodeId tangent =
      b.placeholder("logits.tangent", core::OpRole::kTangent, {{d.b, d.s, d.v}, DType::kBF16});

  // Forward: embedding, layers, final norm, output projection.
  b.scope("", -1, Phase::kForward);
  NodeId emb_w = b.op(OpKind::kDtypeCast, "tok_embeddings.weight_cast", {tok_embeddings},
                      {{"dtype", DType::kBF16}});
  NodeId x = b.op(OpKind::kEmbedding, "tok_embeddings.embedding", {emb_w, tokens});
  std::vector<LayerSaved> saved;
  saved.reserve(params.size());
  for (std::int32_t i = 0; i < n_layers; ++i) {
    const std::size_t first = b.graph().size();
    saved.push_back(layer_forward(b, c, d, i, params[static_cast<std::size_t>(i)], x, freqs));
    x = saved.back().out;
    if (c.checkpoint != CheckpointPolicy::kNone) {
      tag_checkpoints(b, first, saved.back(), c.checkpoint);
    }
  }
  b.scope("", -1, Phase::kForward);
  RmsSaved final_norm = rms_norm(b, "norm", x, norm_weight, c.norm_eps);
  LinearSaved out_proj = linear(b, "output", final_norm.out, output_weight);
  b.pair(out_proj.out, core::OpRole::kOutput, tangent, core::OpRole::kTangent);

  // Backward, in reverse.
  b.scope("bwd", -1, Phase::kBackward);
  NodeId g = linear_backward(b, out_proj, tangent);
  g = rms_backward(b, final_norm, g, d.d, "norm");
  for (std::int32_t i = n_layers - 1; i >= 0; --i) {
    g = layer_backward(b, c, saved[static_cast<std::size_t>(i)], g);
  }
  b.scope("bwd", -1, Phase::kBackward);
  NodeId emb_grad = b.op(
      OpKind::kEmbeddingDenseBackward, "tok_embeddings.grad", {g, tokens},
      {{"num_weights", d.v}, {"padding_idx", std::int64_t{-1}}, {"scale_grad_by_freq", false}});
  NodeId emb_grad32 =
      b.op(OpKind::kDtypeCast, "tok_embeddings.grad_cast", {emb_grad}, {{"dtype", DType::kF32}});
  b.pair(tok_embeddings, core::OpRole::kParam, emb_grad32, core::OpRole::kGrad);

  // Output node: the logits, then every parameter's gradient in parameter order.
  std::vector<NodeId> outputs = {out_proj.out};
  const auto grad_of = [&](NodeId p) {
    return b.graph().contains(p) ? b.graph().node(p).pair : kNoNode;
  };
  outputs.push_back(grad_of(tok_embeddings));
  for (const LayerParams& p : params) {
    for (NodeId w : {p.wq, p.wk, p.wv, p.wo, p.w1, p.w2, p.w3, p.attention_norm, p.ffn_norm}) {
      outputs.push_back(grad_of(w));
    }
  }
  outputs.push_back(grad_of(norm_weight));
  outputs.push_back(grad_of(output_weight));
  b.scope("", -1, Phase::kBackward);
  b.output(std::move(outputs));

  DTPLAN_TRY(Graph raw, std::move(b).finish());
  DTPLAN_TRY(Graph graph, insert_aliases(raw));
  if (n_layers >= 2) {
    RepeatGroup all;
    for (std::int32_t i = 0; i < n_layers; ++i) all.layers.push_back(i);
    graph.set_repeats({std::move(all)});
  }
  return graph;
}

}  // namespace dtplan::graph
