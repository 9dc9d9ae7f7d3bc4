#include "graph/llama3_builder.h"

#include <doctest/doctest.h>

#include <random>

#include "graph/graph_stats.h"
#include "graph/layer_groups.h"
#include "graph/validate.h"
#include "test_models.h"

namespace dtplan::graph {
namespace {

using core::DType;

Llama3Config tiny() { return test_models::tiny_llama3(); }

const TensorMeta& out(const Graph& g, const std::string& name) {
  auto id = g.find(name);
  REQUIRE_MESSAGE(id.has_value(), name);
  return g.node(*id).outputs.at(0);
}

struct LayerCounts {
  int placeholders = 0, forward_ops = 0, backward_ops = 0, forward_aliases = 0,
      backward_aliases = 0, forward_einsums = 0, sdpa = 0, sdpa_backward = 0, casts = 0;
  int total() const {
    return placeholders + forward_ops + backward_ops + forward_aliases + backward_aliases;
  }
};

LayerCounts count_layer(const Graph& g, std::int32_t layer) {
  LayerCounts c;
  for (const Node& n : g.nodes()) {
    if (n.layer != layer) continue;
    const bool fwd = n.phase == Phase::kForward;
    if (n.op == OpKind::kPlaceholder) {
      ++c.placeholders;
    } else if (n.op == OpKind::kAlias) {
      ++(fwd ? c.forward_aliases : c.backward_aliases);
    } else {
      ++(fwd ? c.forward_ops : c.backward_ops);
    }
    if (fwd && n.op == OpKind::kEinsum) ++c.forward_einsums;
    if (is_sdpa_forward(n.op)) ++c.sdpa;
    if (is_sdpa_backward(n.op)) ++c.sdpa_backward;
    if (fwd && (n.op == OpKind::kDtypeCast ||
                (n.op == OpKind::kPermute && n.name.ends_with(".weight_t")))) {
      ++c.casts;
    }
  }
  return c;
}

TEST_CASE("llama3 builder: per-layer node counts") {
  for (Llama3Config c : {tiny(), Llama3Config{}}) {
    c.n_layers = 3;
    Graph g = build_llama3(c).value();
    REQUIRE(validate(g).ok());
    for (std::int32_t layer = 0; layer < 3; ++layer) {
      CAPTURE(layer);
      LayerCounts n = count_layer(g, layer);
      CHECK(n.placeholders == 9);
      CHECK(n.forward_ops == 83);
      CHECK(n.backward_ops == 110);
      CHECK(n.forward_aliases == 29);
      CHECK(n.backward_aliases == 22);
      CHECK(n.total() == 253);
      // docs/reference/strategy_selection.md §5.4: 7 forward einsums (wq, wk, wv, wo, w1, w3, w2)
      // and one SDPA per layer; docs/reference/strategy_selection.md §5.7: 60-90 forward aten nodes
      // besides the per-parameter dtype_cast/permute nodes, 100-150 backward ones, plus aliases.
      CHECK(n.forward_einsums == 7);
      CHECK(n.sdpa == 1);
      CHECK(n.sdpa_backward == 1);
      CHECK(n.casts == 16);  // 9 parameter casts, 7 transposed weights
      CHECK(n.forward_ops - n.casts >= 60);
      CHECK(n.forward_ops - n.casts <= 90);
      CHECK(n.backward_ops >= 100);
      CHECK(n.backward_ops <= 150);
    }
    // Outside the layers: 6 placeholders, embedding, final norm, output projection, their
    // backward, 15 aliases and the output node.
    CHECK(count_layer(g, -1).total() == 56);
    CHECK(g.size() == 56 + 3 * 253);
  }
}

TEST_CASE("llama3 builder: key tensor shapes of LLaMA3-8B at B=16, S=8192") {
  Llama3Config c;  // 8B
  c.n_layers = 2;  // shapes do not depend on depth
  Graph g = build_llama3(c).value();
  const TensorMeta act{{16, 8192, 4096}, DType::kBF16};
  CHECK(out(g, "tok_embeddings.embedding") == act);
  CHECK(out(g, "layers.0.attention_residual") == act);
  CHECK(out(g, "layers.1.ffn_residual") == act);
  CHECK(out(g, "layers.0.attention_norm.to_bf16") == act);
  CHECK(out(g, "layers.0.attention_norm.rsqrt") == TensorMeta{{16, 8192, 1}, DType::kF32});
  CHECK(out(g, "layers.0.attention.wq.einsum") == TensorMeta{{16, 8192, 4096}, DType::kBF16});
  CHECK(out(g, "layers.0.attention.wk.einsum") == TensorMeta{{16, 8192, 1024}, DType::kBF16});
  CHECK(out(g, "layers.0.attention.wv.einsum") == TensorMeta{{16, 8192, 1024}, DType::kBF16});
  CHECK(out(g, "layers.0.attention.q_view") == TensorMeta{{16, 8192, 32, 128}, DType::kBF16});
  CHECK(out(g, "layers.0.attention.k_view") == TensorMeta{{16, 8192, 8, 128}, DType::kBF16});
  CHECK(out(g, "layers.0.attention.freqs_view") == TensorMeta{{1, 8192, 1, 64}, DType::kC64});
  CHECK(out(g, "layers.0.attention.q_rope.view_as_complex") ==
        TensorMeta{{16, 8192, 32, 64}, DType::kC64});
  CHECK(out(g, "layers.0.attention.k_repeat.expand") ==
        TensorMeta{{16, 8192, 8, 4, 128}, DType::kBF16});
  CHECK(out(g, "layers.0.attention.k_repeat.view") ==
        TensorMeta{{16, 8192, 32, 128}, DType::kBF16});
  CHECK(out(g, "layers.0.attention.v_repeat.view") ==
        TensorMeta{{16, 8192, 32, 128}, DType::kBF16});
  CHECK(out(g, "layers.0.attention.q_permute") == TensorMeta{{16, 32, 8192, 128}, DType::kBF16});
  CHECK(out(g, "layers.0.attention.sdpa_out") == TensorMeta{{16, 32, 8192, 128}, DType::kBF16});
  CHECK(out(g, "layers.0.attention.sdpa_lse") == TensorMeta{{16, 32, 8192}, DType::kF32});
  CHECK(out(g, "layers.0.attention.out_view") == act);
  CHECK(out(g, "layers.0.feed_forward.w1.einsum") == TensorMeta{{16, 8192, 14336}, DType::kBF16});
  CHECK(out(g, "layers.0.feed_forward.silu.to_f32") == TensorMeta{{16, 8192, 14336}, DType::kF32});
  CHECK(out(g, "output.einsum") == TensorMeta{{16, 8192, 128256}, DType::kBF16});
  CHECK(out(g, "logits.tangent") == TensorMeta{{16, 8192, 128256}, DType::kBF16});
  CHECK(out(g, "tokens") == TensorMeta{{16, 8192}, DType::kI64});
  CHECK(out(g, "layers.0.attention.wq.weight") == TensorMeta{{4096, 4096}, DType::kF32});
  CHECK(out(g, "layers.0.attention.wk.weight") == TensorMeta{{1024, 4096}, DType::kF32});
  CHECK(out(g, "layers.0.feed_forward.w2.weight") == TensorMeta{{4096, 14336}, DType::kF32});
  CHECK(out(g, "layers.0.attention.wq.weight_t") == TensorMeta{{4096, 4096}, DType::kBF16});
  // backward
  CHECK(out(g, "layers.0.bwd.attention.wq.grad_input") == act);
  CHECK(out(g, "layers.0.bwd.feed_forward.w2.grad_weight_t") ==
        TensorMeta{{14336, 4096}, DType::kBF16});
  CHECK(out(g, "layers.0.bwd.feed_forward.w2.grad_weight_cast") ==
        TensorMeta{{4096, 14336}, DType::kF32});
  CHECK(out(g, "layers.0.bwd.attention.sdpa.grad_k") ==
        TensorMeta{{16, 32, 8192, 128}, DType::kBF16});
  CHECK(out(g, "layers.0.bwd.attention.k_repeat.grad_squeeze") ==
        TensorMeta{{16, 8192, 8, 128}, DType::kBF16});
  CHECK(out(g, "bwd.tok_embeddings.grad") == TensorMeta{{128256, 4096}, DType::kBF16});
  CHECK(out(g, "bwd.tok_embeddings.grad_cast") == TensorMeta{{128256, 4096}, DType::kF32});
  const Node& sdpa = g.node(*g.find("layers.0.attention.sdpa"));
  CHECK(sdpa.op == OpKind::kSdpaCudnn);
  CHECK(sdpa.attrs.get_bool_or("is_causal", false).value());
  CHECK(g.node(*g.find("layers.0.attention.wq.einsum")).attrs.get_string("equation").value() ==
        "abk,kn->abn");
}

TEST_CASE("llama3 builder: parameter counts and gradient pairs") {
  Llama3Config c;  // 8B, all 32 layers
  Graph g = build_llama3(c).value();
  GraphStats s = graph_stats(g).value();
  CHECK(s.params == 8030261248);
  CHECK(s.params == llama3_param_count(c).value());
  CHECK(s.param_bytes == 4 * s.params);  // fp32 storage
  CHECK(g.size() == 56 + 32 * 253);
  // Every parameter pairs with a gradient alias of its shape in fp32; the output node returns
  // the logits, then the gradients in parameter order.
  const Node& output = g.node(*find_output_node(g));
  std::size_t params = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const Node& p = g.nodes()[i];
    if (p.role != core::OpRole::kParam) continue;
    ++params;
    REQUIRE(p.pair != kNoNode);
    const Node& grad = g.node(p.pair);
    CHECK(grad.role == core::OpRole::kGrad);
    CHECK(grad.op == OpKind::kAlias);
    CHECK(grad.outputs[0] == p.outputs[0]);
    CHECK(grad.layer == p.layer);
    CHECK(output.inputs.at(params) == p.pair);
  }
  CHECK(params == 2 + 32 * 9 + 1);
  CHECK(output.inputs.size() == params + 1);
  const Node& logits = g.node(output.inputs[0]);
  CHECK(logits.role == core::OpRole::kOutput);
  CHECK(g.node(logits.pair).name == "logits.tangent");
  // 70B: the graph's parameter count follows the closed form at any depth.
  Llama3Config c70 = test_models::llama3_70b();
  c70.n_layers = 2;
  CHECK(graph_stats(build_llama3(c70).value()).value().params == llama3_param_count(c70).value());
  c70.n_layers = 80;
  CHECK(llama3_param_count(c70).value() == 70553706496);
}

TEST_CASE("llama3 builder: the layers override scales the graph linearly") {
  std::int64_t two_layers = 0;
  for (std::int64_t layers = 1; layers <= 5; ++layers) {
    Llama3Config c = tiny();
    c.n_layers = layers;
    Graph g = build_llama3(c).value();
    REQUIRE(validate(g).ok());
    const auto size = static_cast<std::int64_t>(g.size());
    if (layers == 1) {
      // One layer: no repeat group, and freqs_cis has a single user, so no alias for it.
      CHECK(g.repeats().empty());
      CHECK(size == 56 - 1 + 253);
      continue;
    }
    if (layers == 2) two_layers = size;
    CHECK(size == two_layers + (layers - 2) * 253);
    REQUIRE(g.repeats().size() == 1);
    CHECK(g.repeats()[0].layers.size() == static_cast<std::size_t>(layers));
    CHECK(find_repeated_layers(g) == g.repeats());
  }
  CHECK(two_layers == 56 + 2 * 253);
}

TEST_CASE("llama3 builder: variants stay valid and change only what they should") {
  // No GQA: repeat_kv disappears (4 forward + 3 backward nodes for k and for v, their aliases).
  Llama3Config mha = tiny();
  mha.n_kv_heads = mha.n_heads;
  Graph g_mha = build_llama3(mha).value();
  REQUIRE(validate(g_mha).ok());
  CHECK_FALSE(g_mha.find("layers.0.attention.k_repeat.expand").has_value());
  CHECK(count_layer(g_mha, 0).forward_ops == 83 - 8);
  CHECK(count_layer(g_mha, 0).backward_ops == 110 - 6);
  // A freqs table longer than the sequence is sliced once per layer.
  Llama3Config sliced = tiny();
  sliced.max_seq_len = 64;
  Graph g_sliced = build_llama3(sliced).value();
  REQUIRE(validate(g_sliced).ok());
  CHECK(out(g_sliced, "freqs_cis") == TensorMeta{{64, 8}, DType::kC64});
  CHECK(out(g_sliced, "layers.1.attention.freqs_slice") == TensorMeta{{16, 8}, DType::kC64});
  CHECK(count_layer(g_sliced, 0).forward_ops == 84);
  // Attention kernels.
  for (auto [kernel, fwd, bwd] :
       {std::tuple{AttentionKernel::kFlash, OpKind::kSdpaFlash, OpKind::kSdpaFlashBackward},
        std::tuple{AttentionKernel::kEfficient, OpKind::kSdpaEfficient,
                   OpKind::kSdpaEfficientBackward}}) {
    Llama3Config k = tiny();
    k.attention = kernel;
    Graph gk = build_llama3(k).value();
    REQUIRE(validate(gk).ok());
    CHECK(gk.node(*gk.find("layers.0.attention.sdpa")).op == fwd);
    CHECK(gk.node(*gk.find("layers.0.bwd.attention.sdpa.grad")).op == bwd);
  }
}

TEST_CASE("llama3 builder: selective checkpointing only tags forward layer nodes") {
  Llama3Config c = tiny();
  Graph tagged = build_llama3(c).value();
  c.checkpoint = CheckpointPolicy::kNone;
  Graph plain = build_llama3(c).value();
  REQUIRE(tagged.size() == plain.size());
  int saved = 0;
  for (std::size_t i = 0; i < tagged.size(); ++i) {
    Node a = tagged.nodes()[i];
    const Node& b = plain.nodes()[i];
    CHECK(b.checkpoint == Checkpoint::kNone);
    if (a.checkpoint == Checkpoint::kSave) ++saved;
    if (a.checkpoint != Checkpoint::kNone) {
      CHECK(a.phase == Phase::kForward);
      CHECK(a.layer >= 0);
      CHECK(a.op != OpKind::kPlaceholder);
    }
    a.checkpoint = Checkpoint::kNone;
    CHECK(a == b);
  }
  // Per layer: wq, wv, w1, w2 einsums (every second matmul is recomputed), the SDPA and the
  // block's output (the next block's input, which its checkpoint saves).
  CHECK(saved == 2 * 6);
  CHECK(tagged.node(*tagged.find("layers.0.ffn_residual")).checkpoint == Checkpoint::kSave);
  CHECK(tagged.node(*tagged.find("layers.0.attention.wq.einsum")).checkpoint == Checkpoint::kSave);
  CHECK(tagged.node(*tagged.find("layers.0.attention.wk.einsum")).checkpoint ==
        Checkpoint::kRecompute);
  CHECK(tagged.node(*tagged.find("layers.0.feed_forward.w3.einsum")).checkpoint ==
        Checkpoint::kRecompute);
}

TEST_CASE("llama3 builder: random small configurations validate and match the closed forms") {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 12; ++trial) {
    Llama3Config c;
    c.n_heads = std::int64_t{1} << (rng() % 3);
    c.n_kv_heads = c.n_heads >> (rng() % 2 == 0 || c.n_heads == 1 ? 0 : 1);
    c.dim = c.n_heads * 2 * static_cast<std::int64_t>(1 + rng() % 4);
    c.n_layers = static_cast<std::int64_t>(1 + rng() % 3);
    c.vocab_size = static_cast<std::int64_t>(8 + rng() % 56);
    c.ffn_dim = static_cast<std::int64_t>(1 + rng() % 32);
    c.batch = static_cast<std::int64_t>(1 + rng() % 3);
    c.seq_len = static_cast<std::int64_t>(1 + rng() % 8);
    if (rng() % 2 == 0) c.max_seq_len = c.seq_len + static_cast<std::int64_t>(rng() % 4);
    c.attention = static_cast<AttentionKernel>(rng() % 3);
    c.checkpoint = static_cast<CheckpointPolicy>(rng() % 3);
    CAPTURE(trial);
    auto g = build_llama3(c);
    REQUIRE_MESSAGE(g.ok(), (g.ok() ? std::string() : g.error().message));
    auto v = validate(*g);
    CHECK_MESSAGE(v.ok(), (v.ok() ? "" : v.error().message));
    CHECK(graph_stats(*g).value().params == llama3_param_count(c).value());
    if (c.n_layers >= 2) CHECK(find_repeated_layers(*g) == g->repeats());
  }
}

TEST_CASE("llama3 builder: invalid configurations are errors, not graphs") {
  Llama3Config c = tiny();
  c.n_kv_heads = 3;
  auto g = build_llama3(c);
  REQUIRE_FALSE(g.ok());
  CHECK(g.error().message == "field 'n_kv_heads': 3 does not divide n_heads 4");
}

TEST_CASE("llama3 builder: float8 converts the blocks' seven linears, not output or the norms") {
  for (auto recipe : {core::Float8Recipe::kTensorwise, core::Float8Recipe::kRowwise}) {
    Llama3Config c = tiny();
    c.float8 = recipe;
    const Graph g = build_llama3(c).value();
    CHECK(validate(g).ok());
    // Tensorwise casts the converted weights to fp8 before any gather
    // (docs/reference/torchtitan.md §6).
    const DType weight = recipe == core::Float8Recipe::kTensorwise ? DType::kF8E4M3 : DType::kBF16;
    int tagged = 0;
    for (const Node& n : g.nodes()) {
      if (n.op == OpKind::kEinsum && n.attrs.contains("float8")) ++tagged;
    }
    CHECK(tagged == 2 * 7 * 3);  // Y, dX and dW of 7 linears in each of 2 blocks
    for (const char* l : {"attention.wq", "attention.wk", "attention.wv", "attention.wo",
                          "feed_forward.w1", "feed_forward.w2", "feed_forward.w3"}) {
      const std::string p = std::string("layers.1.") + l;
      CHECK(out(g, p + ".weight_cast").dtype == weight);
      // The GEMMs' outputs stay bf16, the weight gradient is cast to fp32 as before.
      CHECK(out(g, p + ".einsum").dtype == DType::kBF16);
      const std::string bwd = "layers.1.bwd." + std::string(l);
      CHECK(out(g, bwd + ".grad_input").dtype == DType::kBF16);
      CHECK(out(g, bwd + ".grad_weight_cast").dtype == DType::kF32);
      for (const std::string& gemm : {p + ".einsum", bwd + ".grad_input", bwd + ".grad_weight_t"}) {
        CHECK(g.node(*g.find(gemm)).attrs.get_bool_or("float8", false).value());
      }
    }
    CHECK(out(g, "output.weight_cast").dtype == DType::kBF16);
    CHECK(!g.node(*g.find("output.einsum")).attrs.contains("float8"));
    CHECK(out(g, "layers.0.attention_norm.weight_cast").dtype == DType::kBF16);
    CHECK(out(g, "tok_embeddings.weight_cast").dtype == DType::kBF16);
  }
  // Without float8 no einsum is tagged.
  const Graph plain = build_llama3(tiny()).value();
  for (const Node& n : plain.nodes()) CHECK(!n.attrs.contains("float8"));
}

}  // namespace
}  // namespace dtplan::graph
