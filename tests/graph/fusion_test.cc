#include "graph/fusion.h"

#include <doctest/doctest.h>

#include <map>
#include <set>

#include "graph/llama3_builder.h"
#include "test_models.h"

namespace dtplan::graph {
namespace {

struct Fused {
  Graph graph;
  std::vector<FusedOp> ops;

  const FusedOp& of(std::string_view name) const {
    return ops[static_cast<std::size_t>(index_of(*graph.find(name)))];
  }
};

Fused fused_tiny(core::Execution execution) {
  Graph g = build_llama3(test_models::tiny_llama3(2)).value();
  std::vector<FusedOp> ops = fuse_regions(g, execution);
  return {std::move(g), std::move(ops)};
}

TEST_CASE("fusion: eager execution leaves every op its own kernel") {
  const Fused f = fused_tiny(core::Execution::kEager);
  REQUIRE(f.ops.size() == f.graph.size());
  for (const FusedOp& op : f.ops) CHECK(op == FusedOp{});
  CHECK(core::execution_name(core::Execution::kEager) == "eager");
  CHECK(core::execution_name(core::Execution::kCompiled) == "compiled");
}

TEST_CASE("fusion: the RMSNorm of a compiled block is one kernel reading x, writing what is used") {
  const Fused f = fused_tiny(core::Execution::kCompiled);
  const std::string p = "layers.0.attention_norm.";
  const std::int32_t region = f.of(p + "to_f32").region;
  REQUIRE(region >= 0);
  for (const char* op :
       {"to_f32", "pow", "mean", "add_eps", "rsqrt", "normed", "mul_weight", "to_bf16"}) {
    CAPTURE(op);
    CHECK(f.of(p + op).region == region);
    // The first op in graph order launches the region's kernel.
    CHECK(f.of(p + op).launches == (std::string(op) == "to_f32"));
  }
  // x comes from the embedding (eager, outside the layers): read from HBM.
  CHECK_FALSE(f.of(p + "to_f32").input_internal(0));
  // x in fp32 is read by pow and normed only, both in the region: never written.
  CHECK(f.of(p + "to_f32").output_internal(0));
  CHECK(f.of(p + "pow").input_internal(0));
  CHECK(f.of(p + "pow").output_internal(0));
  CHECK(f.of(p + "mean").output_internal(0));
  // rsqrt and the normalized x are saved for the backward (read by backward ops): written.
  CHECK_FALSE(f.of(p + "rsqrt").output_internal(0));
  CHECK_FALSE(f.of(p + "normed").output_internal(0));
  CHECK(f.of(p + "normed").internal_inputs == 0b11);
  // The output feeds wq, wk and wv (library matmuls): written.
  CHECK_FALSE(f.of(p + "to_bf16").output_internal(0));
  // The weight's cast reads a parameter (level 0, before the embedding's kernel): apart.
  CHECK(f.of(p + "weight_cast").region != region);
  CHECK_FALSE(f.of(p + "mul_weight").input_internal(1));
}

TEST_CASE("fusion: a region never spans a library kernel; ops outside layers stay eager") {
  const Fused f = fused_tiny(core::Execution::kCompiled);
  // The attention residual joins the FFN norm it feeds, but not the FFN residual, which also
  // reads w2's output (computed from that norm's output).
  const std::int32_t ffn_norm = f.of("layers.0.ffn_norm.to_f32").region;
  CHECK(f.of("layers.0.attention_residual").region == ffn_norm);
  CHECK(f.of("layers.0.ffn_residual").region != ffn_norm);
  CHECK(f.of("layers.0.ffn_residual").region >= 0);
  // SiLU, its casts and the gate multiply: one region between w1/w3 and w2.
  const std::int32_t silu = f.of("layers.0.feed_forward.silu.to_f32").region;
  for (const char* op : {"silu.sigmoid", "silu.mul", "silu.to_bf16", "gate"}) {
    CHECK(f.of(std::string("layers.0.feed_forward.") + op).region == silu);
  }
  // The final norm (after the last block) and matmuls are never in a region.
  CHECK(f.of("norm.pow").region == -1);
  CHECK(f.of("norm.pow") == FusedOp{});
  CHECK(f.of("layers.0.attention.wq.einsum").region == -1);
  CHECK(f.of("layers.0.attention.sdpa").region == -1);
}

// Every region: one layer, one phase, one launching op (its first), and convex: no path from a
// member through a kernel outside the region back into it.
TEST_CASE("fusion: every region is convex, in one layer and phase, with one launch") {
  const Fused f = fused_tiny(core::Execution::kCompiled);
  const auto nodes = f.graph.nodes();
  std::map<std::int32_t, std::vector<std::size_t>> members;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (f.ops[i].region >= 0) members[f.ops[i].region].push_back(i);
  }
  REQUIRE(members.size() > 40);
  std::int32_t expected = 0;
  for (const auto& [region, list] : members) {
    CAPTURE(nodes[list.front()].name);
    CHECK(region == expected++);  // numbered by first op
    CHECK(f.ops[list.front()].launches);
    std::set<std::size_t> inside(list.begin(), list.end());
    for (std::size_t i : list) {
      CHECK(nodes[i].layer == nodes[list.front()].layer);
      CHECK(nodes[i].phase == nodes[list.front()].phase);
      if (i != list.front()) CHECK_FALSE(f.ops[i].launches);
    }
    // From the first member on: `passes` marks members and views of them (the member's value),
    // `outside` values computed from a member by an op outside the region; no member reads one.
    std::vector<char> passes(nodes.size(), 0), outside(nodes.size(), 0);
    for (std::size_t i = list.front(); i < nodes.size(); ++i) {
      bool from_member = false, from_outside = false;
      for (NodeId in : nodes[i].inputs) {
        from_member = from_member || passes[static_cast<std::size_t>(index_of(in))];
        from_outside = from_outside || outside[static_cast<std::size_t>(index_of(in))];
      }
      if (inside.count(i)) {
        CHECK_FALSE(from_outside);
        passes[i] = 1;
        continue;
      }
      const OpFamily family = op_family(nodes[i].op);
      const bool view =
          family == OpFamily::kView || (family == OpFamily::kTuple && nodes[i].op != OpKind::kCat);
      passes[i] = view && from_member && !from_outside;
      outside[i] = from_outside || (from_member && !view);
    }
  }
}

}  // namespace
}  // namespace dtplan::graph
