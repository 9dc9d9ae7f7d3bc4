#include "graph/repeat_regions.h"

#include <doctest/doctest.h>

#include "graph/graph_builder.h"
#include "graph/layer_groups.h"
#include "graph/llama3_builder.h"
#include "graph/validate.h"
#include "test_models.h"

namespace dtplan::graph {
namespace {

using core::DType;

Graph strip_layers(const Graph& g) {
  Graph out = g;
  for (std::size_t i = 0; i < out.size(); ++i) out.mutable_node(node_id(i)).layer = -1;
  out.set_repeats({});
  return out;
}

TEST_CASE("repeat regions: stripped LLaMA3 graphs get the builder's layers back") {
  const Llama3Config tiny = test_models::tiny_llama3();
  Llama3Config mha = tiny;
  mha.n_kv_heads = 4;
  mha.attention = AttentionKernel::kFlash;
  Llama3Config sliced = tiny;
  sliced.max_seq_len = 32;
  Llama3Config big;  // LLaMA3-8B dimensions
  for (Llama3Config base : {tiny, mha, sliced, big}) {
    for (std::int64_t layers : {2, 3}) {
      base.n_layers = layers;
      CAPTURE(layers);
      Graph g = build_llama3(base).value();
      InferredLayers inferred = infer_layers(strip_layers(g));
      CHECK(inferred.layers == layers);
      std::size_t mismatches = 0;
      for (std::size_t i = 0; i < g.size(); ++i) {
        if (inferred.layer_of[i] != g.nodes()[i].layer) ++mismatches;
      }
      CHECK(mismatches == 0);
      Graph restored = with_inferred_layers(strip_layers(g));
      CHECK(restored.repeats() == g.repeats());
      CHECK(restored == g);
      CHECK(validate(restored).ok());
    }
  }
}

TEST_CASE("repeat regions: a chain of identical MLP blocks") {
  for (int blocks : {2, 3, 7}) {
    GraphBuilder b("mlp");
    NodeId x = b.placeholder("x", core::OpRole::kInput, {{8, 16}, DType::kF32});
    for (int i = 0; i < blocks; ++i) {
      b.scope("block" + std::to_string(i), -1, Phase::kForward);
      NodeId w =
          b.placeholder("w" + std::to_string(i), core::OpRole::kParam, {{16, 16}, DType::kF32});
      NodeId h = b.op(OpKind::kMm, "mm", {x, w});
      NodeId r = b.op(OpKind::kRelu, "relu", {h});
      x = b.op(OpKind::kAdd, "residual", {x, r});
    }
    b.scope("", -1, Phase::kForward);
    NodeId loss = b.op(OpKind::kSum, "loss", {x});
    b.output({loss});
    Graph g = std::move(b).finish().value();
    REQUIRE(validate(g).ok());
    InferredLayers inferred = infer_layers(g);
    CHECK(inferred.layers == blocks);
    // The input x and the loss stay outside; each block's 4 nodes form one layer.
    CHECK(inferred.layer_of[0] == -1);
    for (int i = 0; i < blocks; ++i) {
      for (int k = 0; k < 4; ++k) CHECK(inferred.layer_of[1 + 4 * i + k] == i);
    }
    Graph restored = with_inferred_layers(g);
    REQUIRE(restored.repeats().size() == 1);
    CHECK(restored.repeats()[0].layers.size() == static_cast<std::size_t>(blocks));
  }
}

TEST_CASE("repeat regions: nothing repeats in a graph of distinct ops") {
  GraphBuilder b("distinct");
  NodeId x = b.placeholder("x", core::OpRole::kInput, {{4, 4}, DType::kF32});
  NodeId y = b.op(OpKind::kNeg, "neg", {x});
  NodeId z = b.op(OpKind::kExp, "exp", {y});
  b.op(OpKind::kSum, "sum", {z});
  Graph g = std::move(b).finish().value();
  InferredLayers inferred = infer_layers(g);
  CHECK(inferred.layers == 0);
  CHECK(inferred.layer_of == std::vector<std::int32_t>(g.size(), -1));
  CHECK(infer_layers(Graph("empty")).layers == 0);
}

}  // namespace
}  // namespace dtplan::graph
