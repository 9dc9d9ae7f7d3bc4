#pragma once
// Internal to build_llama3() (llama3_builder.h): the forward pieces and the values each saves
// for its backward, shared by llama3_builder.cc (forward, driver) and llama3_backward.cc.

#include <cstdint>
#include <string>

#include "graph/graph_builder.h"
#include "graph/llama3_config.h"

namespace dtplan::graph::llama3 {

// Values a decomposed RMSNorm saves: x in fp32, the normalized x*rsqrt, rsqrt, the bf16 weight.
struct RmsSaved {
  NodeId weight = kNoNode;  // fp32 parameter
  NodeId weight_bf16 = kNoNode;
  NodeId normed = kNoNode;  // f32 [.., D]
  NodeId rsqrt = kNoNode;   // f32 [.., 1]
  NodeId out = kNoNode;     // bf16
};

// A linear as the einsum rewrite: dtype_cast(W) -> permute -> einsum.
struct LinearSaved {
  NodeId weight = kNoNode;    // fp32 parameter [out, in]
  NodeId weight_t = kNoNode;  // bf16 [in, out] (fp8 under tensorwise float8)
  NodeId x = kNoNode;         // input [B, S, in]
  NodeId out = kNoNode;       // [B, S, out]
  std::string prefix;         // module path, e.g. "layers.0.attention.wq"
  bool float8 = false;        // its three einsums carry {"float8": true}
};

// The attributes of a linear's einsum: the equation, and {"float8": true} when it is converted.
Attributes linear_einsum_attrs(const std::string& equation, bool float8);

// RoPE on one of q / k.
struct RopeSaved {
  NodeId freqs = kNoNode;  // c64 [1, S, 1, hd/2]
  std::int64_t heads = 0;
  NodeId out = kNoNode;  // bf16 [B, S, h, hd]
};

struct LayerParams {
  NodeId wq, wk, wv, wo, w1, w2, w3, attention_norm, ffn_norm;
};

struct LayerSaved {
  std::int32_t layer = 0;
  std::string prefix;  // "layers.3"
  LayerParams params{};
  RmsSaved attention_norm, ffn_norm;
  LinearSaved wq, wk, wv, wo, w1, w2, w3;
  RopeSaved q_rope, k_rope;
  NodeId xq = kNoNode, xk = kNoNode, xv = kNoNode;  // [B, H, S, hd] SDPA inputs
  NodeId sdpa = kNoNode;
  NodeId attn = kNoNode, lse = kNoNode, seed = kNoNode, offset = kNoNode;  // getitems
  NodeId silu_in_f32 = kNoNode;                                            // w1 output in fp32
  NodeId silu_out = kNoNode;                                               // bf16
  NodeId w3_out = kNoNode;
  NodeId out = kNoNode;  // the layer output (second residual add)
};

// {"dtype": d}, the attribute of every cast.
inline Attributes to_dtype(core::DType d) { return Attributes{{"dtype", d}}; }

// The SDPA forward and backward op kinds of a kernel.
struct SdpaKinds {
  OpKind forward;
  OpKind backward;
};
SdpaKinds sdpa_kinds(AttentionKernel kernel);

// The model dimensions, derived once.
struct Dims {
  std::int64_t b, s, d, h, kv, hd, f, v, smax;
};

Dims dims_of(const Llama3Config& config);

// Backward of a linear: returns the gradient of its input; the weight gradient's fp32 cast is
// paired with the parameter (roles grad / param).
NodeId linear_backward(GraphBuilder& b, const LinearSaved& saved, NodeId grad_out);

// Backward of a decomposed RMSNorm over the last dim of size `d`; returns the input gradient
// (bf16) and pairs the weight gradient with the weight.
NodeId rms_backward(GraphBuilder& b, const RmsSaved& saved, NodeId grad_out, std::int64_t d,
                    const std::string& prefix);

// The whole backward of one decoder layer; returns the gradient of the layer input.
NodeId layer_backward(GraphBuilder& b, const Llama3Config& config, const LayerSaved& saved,
                      NodeId grad_out);

}  // namespace dtplan::graph::llama3
