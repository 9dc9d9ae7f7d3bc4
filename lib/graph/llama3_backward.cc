// The backward half of build_llama3() (llama3_builder.h), emitted in the order autograd runs it:
// reverse creation order of the forward ops (docs/reference/strategy_selection.md §5.6).

#include <string>
#include <vector>

#include "graph/llama3_parts.h"

namespace dtplan::graph::llama3 {
namespace {

using core::DType;
using K = OpKind;
using Ints = std::vector<std::int64_t>;

// Backward of x [B,S,h,hd] -> f32 -> pairs -> complex * freqs -> real -> flatten -> bf16:
// the same chain with conj(freqs).
NodeId rope_backward(GraphBuilder& b, const Dims& d, const RopeSaved& s, const std::string& prefix,
                     NodeId g) {
  NodeId g32 = b.op(K::kToCopy, prefix + ".grad_to_f32", {g}, to_dtype(DType::kF32));
  NodeId pairs = b.op(K::kView, prefix + ".grad_view_pairs", {g32},
                      {{"size", Ints{d.b, d.s, s.heads, d.hd / 2, 2}}});
  NodeId cx = b.op(K::kViewAsComplex, prefix + ".grad_view_as_complex", {pairs});
  NodeId conj = b.op(K::kConj, prefix + ".grad_freqs_conj", {s.freqs});
  NodeId rot = b.op(K::kMul, prefix + ".grad_mul_freqs", {cx, conj});
  NodeId re = b.op(K::kViewAsReal, prefix + ".grad_view_as_real", {rot});
  NodeId flat =
      b.op(K::kView, prefix + ".grad_flatten", {re}, {{"size", Ints{d.b, d.s, s.heads, d.hd}}});
  return b.op(K::kToCopy, prefix + ".grad_to_bf16", {flat}, to_dtype(DType::kBF16));
}

// Backward of unsqueeze -> expand -> clone -> view: view [B,S,kv,rep,hd] -> sum(3, keepdim) ->
// squeeze(3).
NodeId repeat_kv_backward(GraphBuilder& b, const Dims& d, const std::string& prefix, NodeId g) {
  if (d.kv == d.h) return g;
  NodeId v = b.op(K::kView, prefix + ".grad_view", {g},
                  {{"size", Ints{d.b, d.s, d.kv, d.h / d.kv, d.hd}}});
  NodeId s = b.op(K::kSum, prefix + ".grad_sum", {v}, {{"dim", Ints{3}}, {"keepdim", true}});
  return b.op(K::kSqueeze, prefix + ".grad_squeeze", {s}, {{"dim", std::int64_t{3}}});
}

// Decomposed silu_backward on the fp32 input x: grad * s * (1 + x * (1 - s)), s = sigmoid(x).
NodeId silu_backward(GraphBuilder& b, NodeId x32, NodeId g) {
  const std::string p = "feed_forward.silu";
  NodeId g32 = b.op(K::kToCopy, p + ".grad_to_f32", {g}, to_dtype(DType::kF32));
  NodeId sig = b.op(K::kSigmoid, p + ".grad_sigmoid", {x32});
  NodeId one_minus = b.op(K::kRsub, p + ".grad_one_minus", {sig}, {{"other", std::int64_t{1}}});
  NodeId x_mul = b.op(K::kMul, p + ".grad_x_mul", {x32, one_minus});
  NodeId plus_one = b.op(K::kAdd, p + ".grad_add_one", {x_mul}, {{"other", std::int64_t{1}}});
  NodeId g_sig = b.op(K::kMul, p + ".grad_mul_sigmoid", {g32, sig});
  NodeId prod = b.op(K::kMul, p + ".grad_mul", {g_sig, plus_one});
  return b.op(K::kToCopy, p + ".grad_to_bf16", {prod}, to_dtype(DType::kBF16));
}

}  // namespace

NodeId linear_backward(GraphBuilder& b, const LinearSaved& s, NodeId g) {
  NodeId w =
      b.op(K::kPermute, s.prefix + ".grad_input_weight", {s.weight_t}, {{"dims", Ints{1, 0}}});
  NodeId gx = b.op(K::kEinsum, s.prefix + ".grad_input", {g, w},
                   linear_einsum_attrs("abn,nk->abk", s.float8));
  NodeId gw_t = b.op(K::kEinsum, s.prefix + ".grad_weight_t", {g, s.x},
                     linear_einsum_attrs("abn,abk->kn", s.float8));
  NodeId gw = b.op(K::kPermute, s.prefix + ".grad_weight", {gw_t}, {{"dims", Ints{1, 0}}});
  NodeId gw32 = b.op(K::kDtypeCast, s.prefix + ".grad_weight_cast", {gw}, to_dtype(DType::kF32));
  b.pair(s.weight, core::OpRole::kParam, gw32, core::OpRole::kGrad);
  return gx;
}

NodeId rms_backward(GraphBuilder& b, const RmsSaved& s, NodeId g, std::int64_t d,
                    const std::string& prefix) {
  // y = to_bf16(normed * w), normed = x32 * r, r = rsqrt(mean(x32^2) + eps).
  NodeId g32 = b.op(K::kToCopy, prefix + ".grad_to_f32", {g}, to_dtype(DType::kF32));
  NodeId d_normed = b.op(K::kMul, prefix + ".grad_normed", {g32, s.weight_bf16});
  // weight gradient: sum over every dim but the last of grad * normed
  NodeId gw_mul = b.op(K::kMul, prefix + ".grad_weight_mul", {g32, s.normed});
  Ints outer;
  for (std::int64_t i = 0; i + 1 < static_cast<std::int64_t>(b.meta(g).shape.size()); ++i) {
    outer.push_back(i);
  }
  NodeId gw_sum =
      b.op(K::kSum, prefix + ".grad_weight_sum", {gw_mul}, {{"dim", outer}, {"keepdim", false}});
  NodeId gw16 = b.op(K::kToCopy, prefix + ".grad_weight_to_bf16", {gw_sum}, to_dtype(DType::kBF16));
  NodeId gw32 = b.op(K::kDtypeCast, prefix + ".grad_weight_cast", {gw16}, to_dtype(DType::kF32));
  b.pair(s.weight, core::OpRole::kParam, gw32, core::OpRole::kGrad);
  // input gradient: r * (d_normed - normed * sum(d_normed * normed) / D)
  const std::int64_t last = static_cast<std::int64_t>(outer.size());
  NodeId dot = b.op(K::kMul, prefix + ".grad_dot", {d_normed, s.normed});
  NodeId dot_sum =
      b.op(K::kSum, prefix + ".grad_dot_sum", {dot}, {{"dim", Ints{last}}, {"keepdim", true}});
  NodeId dot_mean = b.op(K::kDiv, prefix + ".grad_dot_mean", {dot_sum}, {{"other", d}});
  NodeId proj = b.op(K::kMul, prefix + ".grad_proj", {s.normed, dot_mean});
  NodeId centered = b.op(K::kSub, prefix + ".grad_centered", {d_normed, proj});
  NodeId scaled = b.op(K::kMul, prefix + ".grad_scaled", {centered, s.rsqrt});
  return b.op(K::kToCopy, prefix + ".grad_to_bf16", {scaled}, to_dtype(DType::kBF16));
}

NodeId layer_backward(GraphBuilder& b, const Llama3Config& c, const LayerSaved& s, NodeId g) {
  const Dims d = dims_of(c);
  b.scope(s.prefix + ".bwd", s.layer, Phase::kBackward);
  // out = h + w2(silu(w1(hn)) * w3(hn))
  NodeId d_gated = linear_backward(b, s.w2, g);
  NodeId d_silu = b.op(K::kMul, "feed_forward.gate.grad_silu", {d_gated, s.w3_out});
  NodeId d_w3 = b.op(K::kMul, "feed_forward.gate.grad_w3", {d_gated, s.silu_out});
  NodeId gx3 = linear_backward(b, s.w3, d_w3);
  NodeId d_w1 = silu_backward(b, s.silu_in_f32, d_silu);
  NodeId gx1 = linear_backward(b, s.w1, d_w1);
  NodeId d_hn = b.op(K::kAdd, "ffn_norm.grad_fan_in", {gx3, gx1});
  NodeId d_h_norm = rms_backward(b, s.ffn_norm, d_hn, d.d, "ffn_norm");
  NodeId d_h = b.op(K::kAdd, "ffn_residual.grad", {g, d_h_norm});

  // h = x + wo(attention(xn))
  NodeId d_of = linear_backward(b, s.wo, d_h);
  NodeId d_oc =
      b.op(K::kView, "attention.out_view.grad", {d_of}, {{"size", Ints{d.b, d.s, d.h, d.hd}}});
  const Attributes heads_first{{"dims", Ints{0, 2, 1, 3}}};
  NodeId d_o = b.op(K::kPermute, "attention.out_permute.grad", {d_oc}, heads_first);
  const TensorMeta q = b.meta(s.xq), k = b.meta(s.xk), v = b.meta(s.xv);
  NodeId sdpa = b.op(sdpa_kinds(c.attention).backward, "attention.sdpa.grad",
                     {d_o, s.xq, s.xk, s.xv, s.attn, s.lse, s.seed, s.offset},
                     {{"is_causal", true}, {"dropout_p", 0.0}}, {q, k, v});
  NodeId dq = b.getitem(sdpa, 0, "attention.sdpa.grad_q");
  NodeId dk = b.getitem(sdpa, 1, "attention.sdpa.grad_k");
  NodeId dv = b.getitem(sdpa, 2, "attention.sdpa.grad_v");
  NodeId d_vr = b.op(K::kPermute, "attention.v_permute.grad", {dv}, heads_first);
  NodeId d_kr = b.op(K::kPermute, "attention.k_permute.grad", {dk}, heads_first);
  NodeId d_qr = b.op(K::kPermute, "attention.q_permute.grad", {dq}, heads_first);
  NodeId d_v = repeat_kv_backward(b, d, "attention.v_repeat", d_vr);
  NodeId d_k_rope = repeat_kv_backward(b, d, "attention.k_repeat", d_kr);
  NodeId d_k = rope_backward(b, d, s.k_rope, "attention.k_rope", d_k_rope);
  NodeId d_q = rope_backward(b, d, s.q_rope, "attention.q_rope", d_qr);
  const std::int64_t kv_width = d.kv * d.hd;
  NodeId d_vy =
      b.op(K::kView, "attention.v_view.grad", {d_v}, {{"size", Ints{d.b, d.s, kv_width}}});
  NodeId d_ky =
      b.op(K::kView, "attention.k_view.grad", {d_k}, {{"size", Ints{d.b, d.s, kv_width}}});
  NodeId d_qy = b.op(K::kView, "attention.q_view.grad", {d_q}, {{"size", Ints{d.b, d.s, d.d}}});
  NodeId gxv = linear_backward(b, s.wv, d_vy);
  NodeId gxk = linear_backward(b, s.wk, d_ky);
  NodeId gxq = linear_backward(b, s.wq, d_qy);
  NodeId fan = b.op(K::kAdd, "attention_norm.grad_fan_in", {gxv, gxk});
  fan = b.op(K::kAdd, "attention_norm.grad_fan_in_1", {fan, gxq});
  NodeId d_x_norm = rms_backward(b, s.attention_norm, fan, d.d, "attention_norm");
  return b.op(K::kAdd, "attention_residual.grad", {d_h, d_x_norm});
}

}  // namespace dtplan::graph::llama3
