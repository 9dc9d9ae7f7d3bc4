#include "strategy/torchtitan_pins.h"

#include <doctest/doctest.h>

#include <map>

#include "support/selection_testing.h"
#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {

namespace {

graph::Llama3Config heads(std::int64_t n_heads, std::int64_t n_kv_heads) {
  graph::Llama3Config c;
  c.n_heads = n_heads;
  c.n_kv_heads = n_kv_heads;
  return c;
}

// Rule name -> placements text.
std::map<std::string, std::string> compiled(const std::vector<std::string>& names,
                                            const std::vector<std::int64_t>& sizes) {
  auto pins = torchtitan_pins(names, sizes, heads(32, 8));
  REQUIRE_MESSAGE(pins.ok(), pins.error().message);
  CHECK(pins->source == "--parallelize torchtitan");
  CHECK(pins->unpinned == UnpinnedOps::kLocal);  // the ops between the styles run locally
  std::map<std::string, std::string> out;
  for (const PinRule& r : pins->rules) {
    CHECK(r.kind == PinKind::kPlacements);
    out[r.name] = placement::format_placements(r.placements);
  }
  return out;
}

}  // namespace

TEST_CASE("torchtitan_pins: FSDP2 alone shards every parameter S(0), activations by batch") {
  const auto p = compiled({"dp"}, {8});
  std::map<std::string, std::string> expected;
  for (const char* name : {"attention.colwise",
                           "attention.rowwise",
                           "feed_forward.colwise",
                           "feed_forward.rowwise",
                           "norms",
                           "tok_embeddings",
                           "output",
                           "tokens",
                           "embedding",
                           "residual_stream",
                           "norm_outputs",
                           "colwise_outputs",
                           "rowwise_outputs",
                           "logits",
                           "residual_stream_grads",
                           "colwise_grad_inputs",
                           "rowwise_grad_inputs",
                           "output_grad_input",
                           "module_inputs",
                           "embedding_output",
                           "module_input_grads",
                           "rowwise_output_grads"}) {
    expected[name] = "S(0)";
  }
  // FSDP2's unshard: the ops reading a weight take it whole.
  for (const char* name : {"unsharded_colwise", "unsharded_rowwise", "unsharded_norms"}) {
    expected[name] = "R";
  }
  // Weight gradients are summed over the batch before FSDP's reduce-scatter.
  for (const char* name :
       {"colwise_grad_weights", "rowwise_grad_weights", "output_grads", "colwise_grad_casts",
        "rowwise_grad_casts", "output_grad_cast", "embedding_grad", "norm_grad_casts"}) {
    expected[name] = "P(sum)";
  }
  expected["rope_table"] = "R";  // the rotary table is a plain buffer on every rank
  CHECK(p == expected);
}

TEST_CASE("torchtitan_pins: HSDP x FSDP x TP, strided where FSDP and TP share dim 0") {
  const auto p = compiled({"dp_replicate", "dp_shard", "tp"}, {2, 4, 8});
  CHECK(p.at("attention.colwise") == "R,_S(0,8),S(0)");
  CHECK(p.at("feed_forward.colwise") == "R,_S(0,8),S(0)");
  CHECK(p.at("tok_embeddings") == "R,_S(0,8),S(0)");
  CHECK(p.at("output") == "R,_S(0,8),S(0)");
  CHECK(p.at("attention.rowwise") == "R,S(0),S(1)");
  CHECK(p.at("feed_forward.rowwise") == "R,S(0),S(1)");
  CHECK(p.at("norms") == "R,S(0),R");
  CHECK(p.at("tokens") == "S(0),S(0),R");
  CHECK(p.at("residual_stream") == "S(0),S(0),S(1)");
  CHECK(p.at("residual_stream_grads") == "S(0),S(0),S(1)");
  CHECK(p.at("norm_outputs") == "S(0),S(0),S(1)");
  CHECK(p.at("colwise_outputs") == "S(0),S(0),S(2)");
  CHECK(p.at("rowwise_outputs") == "S(0),S(0),P(sum)");
  CHECK(p.at("logits") == "S(0),S(0),S(2)");
  CHECK(p.at("embedding") == "S(0),S(0),P(sum)");
  CHECK(p.at("colwise_grad_inputs") == "S(0),S(0),P(sum)");
  CHECK(p.at("rowwise_grad_inputs") == "S(0),S(0),S(2)");
  // Weight gradients are [out, in] like their weights: the weight's TP placement, and the fp32
  // casts stay partial so that FSDP's reduce-scatter moves fp32.
  CHECK(p.at("colwise_grad_weights") == "P(sum),P(sum),S(0)");
  CHECK(p.at("rowwise_grad_weights") == "P(sum),P(sum),S(1)");
  CHECK(p.at("output_grads") == "P(sum),P(sum),S(0)");
  CHECK(p.at("colwise_grad_casts") == "P(sum),P(sum),S(0)");
  CHECK(p.at("rowwise_grad_casts") == "P(sum),P(sum),S(1)");
  CHECK(p.at("output_grad_cast") == "P(sum),P(sum),S(0)");
  // The module boundaries: PrepareModuleInput gathers the norm output on tp, the embedding's
  // RowwiseParallel reduce-scatters into the stream, the gradients mirror both; the norm
  // weights' gradients are all-reduced on tp before FSDP's fp32 cast.
  CHECK(p.at("module_inputs") == "S(0),S(0),R");
  CHECK(p.at("embedding_output") == "S(0),S(0),S(1)");
  CHECK(p.at("module_input_grads") == "S(0),S(0),S(1)");
  CHECK(p.at("rowwise_output_grads") == "S(0),S(0),R");  // gathered once for wo's or w2's backward
  CHECK(p.at("norm_grad_casts") == "P(sum),P(sum),R");
  // FSDP2 gathers the whole TP-local weight before the op that reads it (the transpose).
  CHECK(p.at("unsharded_colwise") == "R,R,S(1)");
  CHECK(p.at("unsharded_rowwise") == "R,R,S(0)");
  CHECK(p.at("unsharded_norms") == "R,R,R");
  // With tp the embedding's backward stays free (no vocab-parallel row to pin).
  CHECK(p.count("embedding_grad") == 0);
  // tp before dp_shard: plain Shard(0) on both already splits tp first.
  CHECK(compiled({"tp", "dp_shard"}, {2, 4}).at("attention.colwise") == "S(0),S(0)");
}

TEST_CASE("torchtitan_pins: context parallel shards the sequence, FSDP over dp_shard x cp") {
  const auto p = compiled({"dp_shard", "cp"}, {2, 2});
  for (const char* name :
       {"attention.colwise", "attention.rowwise", "norms", "tok_embeddings", "output"}) {
    CHECK(p.at(name) == "S(0),S(0)");  // dp_shard outer, cp inner: the flattened dp_shard_cp
  }
  for (const char* name : {"tokens", "embedding", "residual_stream", "norm_outputs",
                           "colwise_outputs", "rowwise_outputs", "logits", "colwise_grad_inputs"}) {
    CHECK(p.at(name) == "S(0),S(1)");
  }
  // Weight gradients also sum the sequence shards' contributions (FSDP's reduce-scatter).
  CHECK(p.at("colwise_grad_weights") == "P(sum),P(sum)");
  CHECK(p.at("ring_attention") == "S(0),S(2)");
  CHECK(p.at("ring_attention_grads") == "S(0),S(2)");
  CHECK(p.at("ring_attention_kv") == "S(0),R");  // K and V gathered on cp before GQA's repeat

  const auto q = compiled({"cp", "tp"}, {2, 2});
  CHECK(q.at("attention.colwise") == "_S(0,2),S(0)");  // FSDP over cp alone (dp_shard absent)
  CHECK(q.at("attention.rowwise") == "S(0),S(1)");
  CHECK(q.at("norms") == "S(0),R");
  CHECK(q.at("tokens") == "S(1),R");
  CHECK(q.at("residual_stream") == "S(1),S(1)");  // cp splits the sequence, then SP
  CHECK(q.at("colwise_outputs") == "S(1),S(2)");
  CHECK(q.at("rowwise_outputs") == "S(1),P(sum)");
  CHECK(q.at("rowwise_grad_weights") == "P(sum),S(1)");
  CHECK(q.at("ring_attention") == "S(2),S(1)");
  CHECK(q.at("ring_attention_kv") == "R,S(2)");  // the kv heads stay split on tp

  const auto r = compiled({"dp_replicate", "dp_shard", "cp", "tp"}, {2, 2, 2, 2});
  CHECK(r.at("attention.colwise") == "R,_S(0,2),_S(0,2),S(0)");
  CHECK(r.at("residual_stream") == "S(0),S(0),S(1),S(1)");
  CHECK(r.at("output_grads") == "P(sum),P(sum),P(sum),S(0)");
  CHECK(r.at("ring_attention") == "S(0),S(0),S(2),S(1)");
  CHECK(r.at("ring_attention_kv") == "S(0),S(0),R,S(2)");
  CHECK(r.at("rope_table") == "R,R,S(0),R");  // each cp rank's positions of the rotary table
  // Without cp there is no attention rule (the solver chooses attention's layout).
  CHECK_FALSE(compiled({"dp_shard", "tp"}, {2, 2}).contains("ring_attention"));
  CHECK(context_parallel_dims({"dp_shard", "cp", "tp"}) == std::vector<std::int32_t>{1});
  CHECK(context_parallel_dims({"dp", "tp"}).empty());
}

TEST_CASE("torchtitan_pins: errors name the rule or the mesh dim") {
  auto error_of = [](const std::vector<std::string>& names, const std::vector<std::int64_t>& sizes,
                     graph::Llama3Config c) {
    auto r = torchtitan_pins(names, sizes, c);
    REQUIRE_FALSE(r.ok());
    return r.error();
  };
  core::Error e = error_of({"dp", "tp"}, {2, 16}, heads(32, 8));
  CHECK(e.kind == core::ErrorKind::kBadInput);
  CHECK(e.message ==
        "--parallelize torchtitan: rule 'attention.colwise': tp size 16 does not divide the heads "
        "(n_heads 32, n_kv_heads 8)");
  // 8 heads split 4 ways, but not the 2 kv heads.
  CHECK(error_of({"dp", "tp"}, {2, 4}, heads(8, 2)).kind == core::ErrorKind::kBadInput);
  // Context parallel: seq_len must split into 2·cp·tp chunks (docs/reference/torchtitan.md §1).
  graph::Llama3Config short_seq = heads(32, 8);
  short_seq.seq_len = 100;
  e = error_of({"dp_shard", "cp", "tp"}, {2, 2, 2}, short_seq);
  CHECK(e.kind == core::ErrorKind::kBadInput);
  CHECK(e.message ==
        "--parallelize torchtitan: rule 'tokens': seq_len 100 is not divisible by 2 x cp 2 x tp "
        "2 = 8 (context parallel's head-tail chunks)");
  short_seq.seq_len = 104;  // 8 | 104
  CHECK(torchtitan_pins({"dp_shard", "cp", "tp"}, std::vector<std::int64_t>{2, 2, 2}, short_seq)
            .ok());
  e = error_of({"dp", "ep"}, {2, 2}, heads(32, 8));
  CHECK(e.kind == core::ErrorKind::kBadInput);
  CHECK(e.message ==
        "--parallelize torchtitan: mesh dim 'ep' has no torchtitan role "
        "(dp_replicate, dp_shard or dp, cp, tp)");
  CHECK(error_of({"dp", "dp_shard"}, {2, 2}, heads(32, 8)).message ==
        "--parallelize torchtitan: mesh dim 'dp_shard' repeats the role dp_shard");
}

TEST_CASE("strided_params: parameters and gradients also offer the tp-first _StridedShard") {
  const graph::Graph& g = tiny_llama3_graph(1);
  EnumerateOptions o;
  o.strided_params = true;
  const auto plain = enumerate_graph(g, std::vector<std::int64_t>{2, 2}, h100()).value();
  const auto strided = enumerate_graph(g, std::vector<std::int64_t>{2, 2}, h100(), o).value();
  // wq [64,64]: {R,S(0),S(1)}^2 = 9, then S(0),S(0) and S(1),S(1) split by mesh dim 1 first.
  const graph::NodeId wq = *g.find("layers.0.attention.wq.weight");
  CHECK(plain.of(wq).size() == 9);
  REQUIRE(strided.of(wq).size() == 11);
  CHECK(strided.of(wq).strategies[9].outputs[0] == pl("_S(0,2),S(0)"));
  CHECK(strided.of(wq).strategies[10].outputs[0] == pl("_S(1,2),S(1)"));
  const graph::NodeId grad = *g.find("layers.0.bwd.attention.wq.grad_weight_cast.alias");
  CHECK(strided.of(grad).size() == 11);
  // Other leaves (tokens) are unchanged.
  const graph::NodeId tokens = *g.find("tokens");
  CHECK(strided.of(tokens).size() == plain.of(tokens).size());
}

TEST_CASE("strided_params with context parallel: FSDP over two dims of a TP-sharded weight") {
  const graph::Graph& g = tiny_llama3_graph(1);
  EnumerateOptions o;
  o.strided_params = true;
  const std::vector<std::int64_t> mesh{2, 2, 2};
  const auto plain = enumerate_graph(g, mesh, h100(), o).value();
  o.context_parallel_dims = {1};
  const auto cp = enumerate_graph(g, mesh, h100(), o).value();
  // wq [64,64] on (dp_shard, cp, tp): S(0) on all three gets the three-way layout with tp
  // splitting first, in place of the two-way S(0),_S(0,2),S(0), only with context parallel
  // (other plans keep their option lists).
  const graph::NodeId wq = *g.find("layers.0.attention.wq.weight");
  CHECK(cp.of(wq).size() == plain.of(wq).size());
  bool three_way = false;
  for (const auto& s : cp.of(wq).strategies)
    three_way |= s.outputs[0] == pl("_S(0,2),_S(0,2),S(0)");
  CHECK(three_way);
  for (const auto& s : plain.of(wq).strategies) CHECK(s.outputs[0] != pl("_S(0,2),_S(0,2),S(0)"));
}

}  // namespace dtplan::strategy::testing
