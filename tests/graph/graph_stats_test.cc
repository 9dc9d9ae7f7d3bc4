#include "graph/graph_stats.h"

#include <doctest/doctest.h>

#include "graph/llama3_builder.h"
#include "test_models.h"

namespace dtplan::graph {
namespace {

TEST_CASE("graph stats: LLaMA3 counts add up") {
  Llama3Config c = test_models::tiny_llama3(3);
  Graph g = build_llama3(c).value();
  GraphStats s = graph_stats(g).value();
  CHECK(s.nodes == static_cast<std::int64_t>(g.size()));
  CHECK(s.forward_nodes + s.backward_nodes == s.nodes);
  std::int64_t by_op = 0;
  for (const OpCount& o : s.op_counts) {
    CHECK(o.count > 0);
    by_op += o.count;
  }
  CHECK(by_op == s.nodes);
  for (std::size_t i = 1; i < s.op_counts.size(); ++i) {
    CHECK(s.op_counts[i - 1].op <= s.op_counts[i].op);
  }
  REQUIRE(s.layers.size() == 4);
  CHECK(s.layers[0].layer == -1);
  std::int64_t layer_nodes = 0, layer_params = 0;
  for (const LayerStats& l : s.layers) {
    layer_nodes += l.nodes;
    layer_params += l.params;
    CHECK(l.forward_nodes + l.backward_nodes == l.nodes);
    CHECK(l.param_bytes == 4 * l.params);
  }
  CHECK(layer_nodes == s.nodes);
  CHECK(layer_params == s.params);
  // Per layer: 2*D*D + 2*D*kv + 3*D*F + 2*D with D=64, kv=32, F=128.
  CHECK(s.layers[1].params == 2 * 64 * 64 + 2 * 64 * 32 + 3 * 64 * 128 + 2 * 64);
  CHECK(s.layers[1] ==
        LayerStats{0, 253, 121, 132, 51, s.layers[1].params, s.layers[1].param_bytes});
  CHECK(s.params == llama3_param_count(c).value());
  CHECK(s.buffer_bytes == 16 * 8 * 8);  // freqs_cis c64 [16, 8]
  CHECK(s.repeat_groups == 1);
  CHECK(s.repeated_layers == 3);
  CHECK(op_count(s, OpKind::kEinsum) == 3 * 21 + 3);
  CHECK(op_count(s, OpKind::kSdpaCudnn) == 3);
  CHECK(op_count(s, OpKind::kOutput) == 1);
  CHECK(op_count(s, OpKind::kMm) == 0);
}

TEST_CASE("graph stats: other ops are counted per target") {
  Graph g("g");
  for (const char* name : {"a", "b", "c"}) {
    Node n;
    n.name = name;
    n.op = OpKind::kOther;
    n.target = std::string(name) == "b" ? "aten.index_put.default" : "aten.cumsum.default";
    n.outputs = {TensorMeta{{2}, core::DType::kF32}};
    REQUIRE(g.add_node(std::move(n)).ok());
  }
  GraphStats s = graph_stats(g).value();
  REQUIRE(s.op_counts.size() == 2);
  CHECK(s.op_counts[0] == OpCount{OpKind::kOther, "aten.cumsum.default", 2});
  CHECK(s.op_counts[1] == OpCount{OpKind::kOther, "aten.index_put.default", 1});
  CHECK(op_count(s, OpKind::kOther) == 3);
}

}  // namespace
}  // namespace dtplan::graph
