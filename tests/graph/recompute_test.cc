#include "graph/recompute.h"

#include <doctest/doctest.h>

#include <set>
#include <string>

#include "graph/llama3_builder.h"
#include "test_models.h"

namespace dtplan::graph {
namespace {

Graph tiny_with(CheckpointPolicy policy) {
  Llama3Config c = test_models::tiny_llama3();
  c.checkpoint = policy;
  return build_llama3(c).value();
}

// The names of the recomputed nodes of layer `layer` with op `op`, without the layer prefix.
std::set<std::string> recomputed(const Graph& g, std::int32_t layer, OpKind op) {
  const std::vector<char> r = recomputed_nodes(g);
  std::set<std::string> out;
  const std::string prefix = "layers." + std::to_string(layer) + ".";
  for (std::size_t i = 0; i < g.size(); ++i) {
    const Node& n = g.nodes()[i];
    if (r[i] != 0 && n.layer == layer && n.op == op) out.insert(n.name.substr(prefix.size()));
  }
  return out;
}

std::int64_t count(const std::vector<char>& v) {
  std::int64_t n = 0;
  for (char c : v) n += c != 0 ? 1 : 0;
  return n;
}

// FLOPs of the recomputed einsums "abk,kn->abn": 2 x B x S x K x N each.
double recomputed_matmul_flops(const Graph& g) {
  const std::vector<char> r = recomputed_nodes(g);
  double flops = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const Node& n = g.nodes()[i];
    if (r[i] == 0 || n.op != OpKind::kEinsum) continue;
    const Shape& x = g.node(n.inputs[0]).outputs[0].shape;
    const Shape& w = g.node(n.inputs[1]).outputs[0].shape;
    flops += 2.0 * static_cast<double>(x[0] * x[1] * w[0] * w[1]);
  }
  return flops;
}

TEST_CASE("recompute: none recomputes nothing") {
  const Graph g = tiny_with(CheckpointPolicy::kNone);
  CHECK(count(recomputed_nodes(g)) == 0);
  CHECK(recomputed_matmul_flops(g) == 0);
}

TEST_CASE("recompute: selective_op recomputes wk, wo and w3 and not the saved matmuls") {
  const Graph g = tiny_with(CheckpointPolicy::kSelectiveOp);
  for (std::int32_t layer : {0, 1}) {
    CHECK(recomputed(g, layer, OpKind::kEinsum) == std::set<std::string>{"attention.wk.einsum",
                                                                         "attention.wo.einsum",
                                                                         "feed_forward.w3.einsum"});
    CHECK(recomputed(g, layer, OpKind::kSdpaCudnn).empty());
  }
  // Tiny: B*S = 64 tokens, D 64, kv x hd = 32, F 128. wk 64x32, wo 64x64, w3 64x128 per layer:
  // 2 x 64 x (2048 + 4096 + 8192) = 1835008 FLOPs a layer, two layers.
  CHECK(recomputed_matmul_flops(g) == 2.0 * 1835008);
  // Nothing outside the layers, nothing in the backward, no placeholder, never the block output.
  const std::vector<char> r = recomputed_nodes(g);
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (r[i] == 0) continue;
    const Node& n = g.nodes()[i];
    CHECK(n.layer >= 0);
    CHECK(n.phase == Phase::kForward);
    CHECK(n.op != OpKind::kPlaceholder);
    if (n.op != OpKind::kAlias) CHECK(n.checkpoint == Checkpoint::kRecompute);
  }
  CHECK(r[static_cast<std::size_t>(index_of(*g.find("layers.0.ffn_residual")))] == 0);
}

// docs/reference/torchtitan.md §5
TEST_CASE("recompute: selective_op recomputes every float8 linear") {
  Llama3Config c = test_models::tiny_llama3();
  c.checkpoint = CheckpointPolicy::kSelectiveOp;
  c.float8 = core::Float8Recipe::kTensorwise;
  const Graph g = build_llama3(c).value();
  // None is saved; w2's output is read by no backward op (only the residual add, whose backward
  // needs no inputs), so, as under full AC, it is not recomputed either.
  for (std::int32_t layer : {0, 1}) {
    CHECK(recomputed(g, layer, OpKind::kEinsum) ==
          std::set<std::string>{"attention.wq.einsum", "attention.wk.einsum", "attention.wv.einsum",
                                "attention.wo.einsum", "feed_forward.w1.einsum",
                                "feed_forward.w3.einsum"});
    CHECK(recomputed(g, layer, OpKind::kSdpaCudnn).empty());
  }
  // 2 x 64 tokens x 64 x (64 + 32 + 32 + 64 + 2 x 128) = 3670016 FLOPs a layer.
  CHECK(recomputed_matmul_flops(g) == 2.0 * 3670016);
}

TEST_CASE("recompute: full recomputes the block's forward up to its last matmul") {
  const Graph g = tiny_with(CheckpointPolicy::kFull);
  for (std::int32_t layer : {0, 1}) {
    // Every matmul but w2, whose output only the block's final residual add reads (the add's
    // backward needs no value): the recomputation stops once the backward has all it reads.
    CHECK(recomputed(g, layer, OpKind::kEinsum) ==
          std::set<std::string>{"attention.wq.einsum", "attention.wk.einsum", "attention.wv.einsum",
                                "attention.wo.einsum", "feed_forward.w1.einsum",
                                "feed_forward.w3.einsum"});
    CHECK(recomputed(g, layer, OpKind::kSdpaCudnn) == std::set<std::string>{"attention.sdpa"});
  }
  // 2 x 64 x (wq 4096 + wk 2048 + wv 2048 + wo 4096 + w1 8192 + w3 8192) = 3670016 FLOPs a layer.
  CHECK(recomputed_matmul_flops(g) == 2.0 * 3670016);
  // The block outputs are kept; the recomputed nodes are tagged ones (an alias by its producer).
  const std::vector<char> r = recomputed_nodes(g);
  CHECK(r[static_cast<std::size_t>(index_of(*g.find("layers.0.ffn_residual")))] == 0);
  CHECK(r[static_cast<std::size_t>(index_of(*g.find("layers.1.ffn_residual")))] == 0);
  for (std::size_t i = 0; i < g.size(); ++i) {
    const Node& n = g.nodes()[i];
    if (r[i] != 0 && n.op != OpKind::kAlias) CHECK(n.checkpoint == Checkpoint::kRecompute);
  }
}

TEST_CASE("recompute: gradient nodes are the weight gradients' way out") {
  const Graph g = tiny_with(CheckpointPolicy::kNone);
  const std::vector<char> grad = gradient_nodes(g);
  auto is = [&](const char* name) {
    const auto id = g.find(name);
    REQUIRE_MESSAGE(id.has_value(), name);
    return grad[static_cast<std::size_t>(index_of(*id))] != 0;
  };
  CHECK(is("layers.0.bwd.attention.wq.grad_weight_t"));
  CHECK(is("layers.0.bwd.attention.wq.grad_weight"));
  CHECK(is("layers.0.bwd.attention.wq.grad_weight_cast"));
  CHECK(is("layers.0.bwd.attention_norm.grad_weight_sum"));
  CHECK_FALSE(is("layers.0.bwd.attention_norm.grad_weight_mul"));
  CHECK_FALSE(is("layers.0.bwd.attention.wq.grad_input"));
  CHECK_FALSE(is("layers.0.attention.wq.einsum"));
  // One chain per parameter (2 x 9 + 3), each ending at its batch reduction.
  const std::vector<NodeId> roots = gradient_roots(g);
  CHECK(roots.size() == 21);
  std::int64_t nodes = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (grad[i] == 0) continue;
    ++nodes;
    CHECK(g.nodes()[i].phase == Phase::kBackward);
  }
  // Linears: einsum, permute, cast (+ the alias returned); norms: sum, to_bf16, cast (+ alias).
  CHECK(nodes < 5 * 21);
}

}  // namespace
}  // namespace dtplan::graph
