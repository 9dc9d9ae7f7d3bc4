#include "strategy/graph_strategies.h"

#include <doctest/doctest.h>

#include "../graph/test_models.h"
#include "graph/llama3_builder.h"
#include "support/strategy_testing.h"

namespace dtplan::strategy {
namespace {

using testing::llama3_8b_8x8;

// docs/reference/strategy_selection.md §2.12
TEST_CASE("graph strategies: the LLaMA3-8B cheat-sheet counts on 8x8") {
  const auto& e = llama3_8b_8x8();
  for (int layer : {0, 1}) {
    const std::string l = "layers." + std::to_string(layer) + ".";
    const std::string b = "layers." + std::to_string(layer) + ".bwd.";
    CAPTURE(layer);
    for (const char* w : {"wq", "wk", "wv", "wo"}) {
      const std::string m = std::string("attention.") + w;
      CHECK(e.of(l + m + ".einsum").size() == 24);         // forward linear
      CHECK(e.of(b + m + ".grad_input").size() == 24);     // grad-input
      CHECK(e.of(b + m + ".grad_weight_t").size() == 24);  // grad-weight
      CHECK(e.of(l + m + ".weight").size() == 9);          // 2-D weights
    }
    CHECK(e.of(l + "feed_forward.w1.einsum").size() == 24);
    CHECK(e.of(l + "attention.sdpa").size() == 7);
    CHECK(e.of(b + "attention.sdpa.grad").size() == 7);
    CHECK(e.of(l + "attention_norm.weight").size() == 4);
    CHECK(e.of(l + "ffn_norm.weight").size() == 4);
    CHECK(e.of(l + "attention.q_view").size() == 23);
    CHECK(e.of(l + "attention.k_view").size() == 23);
    CHECK(e.of(l + "attention.v_view").size() == 23);
    CHECK(e.of(l + "attention.freqs_view").size() == 9);
    // [16,8192,4096] activations at their alias (shared redistribution) points.
    CHECK(e.of(l + "attention_norm.to_bf16.alias").size() == 15);
    CHECK(e.of(l + "attention_residual.alias").size() == 15);
    // The attention layout at the SDPA output's alias; lse read through getitem follows SDPA.
    CHECK(e.of(l + "attention.sdpa_out.alias").size() == 23);
    CHECK(e.of(l + "attention.sdpa_lse").size() == 7);
    CHECK(e.of(l + "attention.sdpa_seed").size() == 1);
  }
  CHECK(e.of("tokens").size() == 8);
  CHECK(e.of("tok_embeddings.embedding.alias").size() == 15);
  CHECK(e.of("output.weight").size() == 9);
  CHECK(e.of("output.einsum").size() == 24);
  CHECK(e.of("logits.tangent").size() == 15);
  CHECK(e.of("output").rule == Rule::kOutput);
}

TEST_CASE("graph strategies: getitem reads its tuple element; layers share enumerations") {
  const auto& e = llama3_8b_8x8();
  const OpStrategy& sdpa = e.of("layers.0.attention.sdpa");
  const OpStrategy& lse = e.of("layers.0.attention.sdpa_lse");
  REQUIRE(lse.size() == sdpa.size());
  for (std::size_t s = 0; s < sdpa.size(); ++s) {
    CHECK(lse.strategies[s].outputs[0] == sdpa.strategies[s].outputs[1]);
  }
  CHECK(lse.follower_map == std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6});
  const OpStrategy& seed = e.of("layers.0.attention.sdpa_seed");
  CHECK(seed.follower_map == std::vector<std::int32_t>(7, 0));
  // Layer 1 shares every enumeration of layer 0 (the k-th nodes of the layers correspond).
  std::vector<std::int32_t> layer0, layer1;
  for (std::size_t i = 0; i < e.graph.size(); ++i) {
    const std::int32_t layer = e.graph.nodes()[i].layer;
    if (layer == 0 || layer == 1) {
      (layer == 0 ? layer0 : layer1).push_back(e.strategies.distinct_index(graph::node_id(i)));
    }
  }
  CHECK(layer0.size() > 200);
  CHECK(layer0 == layer1);
}

TEST_CASE("graph strategies: the cache changes nothing but the work done") {
  auto g = graph::build_llama3(graph::test_models::tiny_llama3(2));
  REQUIRE(g.ok());
  for (const std::vector<std::int64_t>& mesh :
       std::vector<std::vector<std::int64_t>>{{2, 2}, {4}}) {
    EnumerateOptions off;
    off.cache = false;
    const auto cached = testing::enumerate(*g, mesh);
    const auto uncached = testing::enumerate(*g, mesh, off);
    REQUIRE(uncached.strategies.node_count() == g->size());
    CHECK(uncached.strategies.distinct_count() == g->size());
    CHECK(cached.strategies.distinct_count() < g->size() / 3);
    for (std::size_t i = 0; i < g->size(); ++i) {
      CHECK(cached.strategies.of(graph::node_id(i)) == uncached.strategies.of(graph::node_id(i)));
    }
    CHECK(cached.strategies.total_strategies() == uncached.strategies.total_strategies());
    // Deterministic: a second run is identical.
    CHECK(testing::enumerate(*g, mesh).strategies == cached.strategies);
  }
}

TEST_CASE("graph strategies: errors name the node") {
  graph::GraphBuilder b("bad");
  auto x = b.placeholder("x", core::OpRole::kInput, {{4, 8}, core::DType::kF32});
  b.op(graph::OpKind::kNeg, "neg", {x});
  graph::Graph g = testing::finish(std::move(b));
  auto r = enumerate_graph(g, std::vector<std::int64_t>{0}, testing::h100());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.starts_with("node 'x': "));
  // A getitem past its producer's outputs.
  graph::Node gi;
  gi.name = "gi";
  gi.op = graph::OpKind::kGetitem;
  gi.inputs = {*g.find("neg")};
  gi.outputs = {{{4, 8}, core::DType::kF32}};
  gi.attrs.set("index", std::int64_t{3});
  REQUIRE(g.add_node(gi).ok());
  auto r2 = enumerate_graph(g, std::vector<std::int64_t>{2}, testing::h100());
  REQUIRE_FALSE(r2.ok());
  CHECK(r2.error().message == "node 'gi': reads output 3 of 'neg', which has 1");
  CHECK(producer_output_index(gi) == 3);
  CHECK(producer_output_index(g.node(*g.find("neg"))) == 0);
}

}  // namespace
}  // namespace dtplan::strategy
