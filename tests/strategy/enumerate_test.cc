#include "strategy/enumerate.h"

#include <doctest/doctest.h>

#include <random>
#include <set>

#include "../graph/test_models.h"
#include "graph/llama3_builder.h"
#include "graph/shape_infer.h"
#include "strategy/compute_cost.h"
#include "strategy/local_shapes.h"
#include "support/strategy_testing.h"

namespace dtplan::strategy {
namespace {

using core::DType;
using graph::OpKind;
using graph::TensorMeta;

// The invariants every enumeration must satisfy, node by node.
void check_invariants(const testing::Enumerated& e, const std::vector<std::int64_t>& mesh) {
  const graph::Graph& g = e.graph;
  std::set<std::int32_t> checked;  // distinct enumerations are checked once
  for (std::size_t i = 0; i < g.size(); ++i) {
    const graph::Node& node = g.nodes()[i];
    const OpStrategy& op = e.strategies.of(graph::node_id(i));
    if (!checked.insert(e.strategies.distinct_index(graph::node_id(i))).second) continue;
    CAPTURE(node.name);
    CHECK(op.rule == rule_for(node));
    if (op.rule == Rule::kOutput) {
      CHECK(op.strategies.empty());
      continue;
    }
    REQUIRE_FALSE(op.strategies.empty());
    std::vector<TensorMeta> inputs;
    for (graph::NodeId p : node.inputs) {
      inputs.push_back(
          g.node(p).outputs[node.op == OpKind::kGetitem
                                ? static_cast<std::size_t>(*node.attrs.get_int("index"))
                                : 0]);
    }
    std::set<std::string> seen;
    for (std::size_t s = 0; s < op.size(); ++s) {
      const Strategy& st = op.strategies[s];
      REQUIRE(st.outputs.size() == node.outputs.size());
      REQUIRE(st.inputs.size() == node.inputs.size());
      bool ok = true;
      for (std::size_t o = 0; o < st.outputs.size(); ++o) {
        ok = ok && st.outputs[o].size() == mesh.size() &&
             shardable(node.outputs[o].shape, st.outputs[o], mesh) &&
             partials_compatible(st.outputs[o]) &&
             st.local_output_shapes[o] ==
                 local_shape_at_origin(node.outputs[o].shape, st.outputs[o], mesh);
      }
      for (std::size_t in = 0; in < st.inputs.size(); ++in) {
        ok = ok && st.inputs[in].size() == mesh.size() &&
             shardable(inputs[in].shape, st.inputs[in], mesh) && partials_compatible(st.inputs[in]);
      }
      // Free ops cost nothing; the rest at least the launch floor.
      ok = ok && st.compute_us == (is_free_op(node, op.rule) ? 0.0 : std::max(st.compute_us, 7.0));
      CAPTURE(format_strategy(st));
      CHECK(ok);
      // No two strategies are equal.
      CHECK(seen.insert(format_strategy(st)).second);
    }
    // Every enumeration starts with the all-Replicate strategy.
    for (const Placements& p : op.strategies[0].outputs) CHECK(p == all_replicate(mesh.size()));
    for (const Placements& p : op.strategies[0].inputs) CHECK(p == all_replicate(mesh.size()));
    // Followers: each strategy comes from a producer option it equals up to replicated shards.
    if (!op.is_follower()) {
      CHECK(op.follower_map.empty());
      continue;
    }
    const auto slot = static_cast<std::size_t>(op.follows_slot);
    const OpStrategy& producer = e.strategies.of(node.inputs[slot]);
    REQUIRE(op.follower_map.size() == producer.size());
    CHECK(op.follower_map[0] == 0);
    std::vector<bool> hit(op.size(), false);
    const std::size_t out_index =
        node.op == OpKind::kGetitem ? static_cast<std::size_t>(*node.attrs.get_int("index")) : 0;
    for (std::size_t j = 0; j < producer.size(); ++j) {
      const std::int32_t s = op.follower_map[j];
      if (s < 0) continue;
      REQUIRE(static_cast<std::size_t>(s) < op.size());
      hit[static_cast<std::size_t>(s)] = true;
      const Placements& option = producer.strategies[j].outputs[out_index];
      const Placements& in = op.strategies[static_cast<std::size_t>(s)].inputs[slot];
      for (std::size_t k = 0; k < mesh.size(); ++k) {
        CHECK((in[k] == option[k] || in[k].is_replicate()));
      }
    }
    for (bool h : hit) CHECK(h);
  }
}

TEST_CASE("enumerate: invariants on every node of a tiny LLaMA3 over several meshes") {
  auto g = graph::build_llama3(graph::test_models::tiny_llama3(2));
  REQUIRE(g.ok());
  for (const std::vector<std::int64_t>& mesh :
       std::vector<std::vector<std::int64_t>>{{2}, {3}, {2, 2}, {4, 2}, {2, 2, 2}}) {
    CAPTURE(graph::format_shape(mesh));
    const testing::Enumerated e = testing::enumerate(*g, mesh);
    check_invariants(e, mesh);
  }
}

TEST_CASE("enumerate: invariants on LLaMA3-8B (2 layers) on 8x8") {
  check_invariants(testing::llama3_8b_8x8(), {8, 8});
}

TEST_CASE("enumerate_op: bad meshes, arities and producer lists are bad input") {
  const TensorMeta x{{4, 8}, DType::kF32};
  auto bad_mesh = testing::try_op(OpKind::kNeg, {x}, {}, {});
  REQUIRE_FALSE(bad_mesh.ok());
  CHECK(bad_mesh.error().kind == core::ErrorKind::kBadInput);
  CHECK(bad_mesh.error().message.starts_with("node 'op': "));
  CHECK_FALSE(testing::try_op(OpKind::kNeg, {x}, {}, {2, 0}).ok());
  auto arity = testing::try_op(OpKind::kNeg, {x, x}, {}, {2}, {}, {}, {x});
  REQUIRE_FALSE(arity.ok());
  CHECK(arity.error().message == "node 'op': 2 inputs and 1 outputs do not fit neg");
  auto producers = testing::try_op(OpKind::kClone, {x}, {}, {2}, {testing::pls({"R,R"})});
  REQUIRE_FALSE(producers.ok());
  CHECK(producers.error().message ==
        "node 'op': input 0: a producer option has 2 placements for 1 mesh dims");
  // Missing attributes name the field.
  auto attr = testing::try_op(OpKind::kPermute, {x}, {}, {2}, {}, {}, {x});
  REQUIRE_FALSE(attr.ok());
  CHECK(attr.error().message == "node 'op': field 'attrs'.'dims': missing");
}

// A random value for attribute `name`, sometimes nonsense.
graph::AttrValue random_attr(const std::string& name, std::mt19937_64& rng) {
  auto small = [&] { return static_cast<std::int64_t>(rng() % 9) - 4; };
  auto list = [&] {
    std::vector<std::int64_t> v(rng() % 4);
    for (auto& x : v) x = small() + (rng() % 2 == 0 ? 4 : 0);
    return v;
  };
  if (name == "keepdim" || name == "is_causal") return rng() % 2 == 0;
  if (name == "equation") {
    const char* pool[] = {"abk,kn->abn", "ij->i", "...k,kn->...n", "ii->i",
                          "a,b->ab",     "bad$",  "ab,bc->ac",     "abn,abk->kn"};
    return std::string(pool[rng() % std::size(pool)]);
  }
  if (name == "dtype") return rng() % 2 == 0 ? DType::kBF16 : DType::kI32;
  if (name == "other") return 0.5;
  if (name == "size" || name == "dims" || name == "normalized_shape" || name == "split_sizes") {
    return list();
  }
  if (rng() % 3 == 0) return list();
  return small();
}

TEST_CASE("enumerate_op: random ops, attributes, shapes and producers never crash") {
  std::mt19937_64 rng(99);
  const char* attr_names[] = {"dim",   "keepdim",  "size",        "dims",       "equation",
                              "index", "dtype",    "dim0",        "dim1",       "normalized_shape",
                              "start", "end",      "step",        "split_size", "split_sizes",
                              "other", "exponent", "num_weights", "is_causal"};
  const char* targets[] = {"aten.var.correction",
                           "aten.native_layer_norm.default",
                           "aten.native_layer_norm_backward.default",
                           "aten.cumsum.default",
                           "aten.iota.default",
                           "aten.index_put.default"};
  int ok = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const auto infos = graph::all_op_infos();
    const graph::OpInfo& info = infos[rng() % infos.size()];
    graph::Node node;
    node.name = "fuzz";
    node.op = info.kind;
    if (info.kind == OpKind::kOther) node.target = targets[rng() % std::size(targets)];
    for (std::size_t a = 0, n = rng() % 4; a < n; ++a) {
      const std::string name = attr_names[rng() % std::size(attr_names)];
      node.attrs.set(name, random_attr(name, rng));
    }
    const int max_in = info.max_inputs < 0 ? info.min_inputs + 3 : info.max_inputs;
    const int n_in =
        info.min_inputs +
        static_cast<int>(rng() % static_cast<std::uint64_t>(max_in - info.min_inputs + 1));
    std::vector<TensorMeta> inputs;
    for (int i = 0; i < n_in; ++i) {
      TensorMeta m{{}, rng() % 4 == 0 ? DType::kI64 : DType::kBF16};
      for (std::size_t d = 0, r = rng() % 5; d < r; ++d)
        m.shape.push_back(static_cast<std::int64_t>(rng() % 7));
      inputs.push_back(std::move(m));
      node.inputs.push_back(graph::node_id(static_cast<std::size_t>(i)));
    }
    std::vector<const TensorMeta*> ptrs;
    for (const TensorMeta& m : inputs) ptrs.push_back(&m);
    auto inferred = graph::infer_outputs(node, ptrs);
    if (inferred.ok() && !inferred->outputs.empty() && rng() % 4 != 0) {
      node.outputs = inferred->outputs;
      // Tuple producers declare their extra outputs too.
      while (static_cast<int>(node.outputs.size()) < info.min_outputs) {
        node.outputs.push_back({{}, DType::kI64});
      }
    } else {
      const int n_out = std::max(info.min_outputs, 1) + static_cast<int>(rng() % 2);
      for (int o = 0; o < n_out; ++o) node.outputs.push_back({{4, 6}, DType::kF32});
    }
    std::vector<std::int64_t> mesh;
    for (std::size_t k = 0, n = 1 + rng() % 2; k < n; ++k)
      mesh.push_back(1 + static_cast<std::int64_t>(rng() % 3));
    std::vector<std::vector<Placements>> producers;
    if (rng() % 2 == 0) {
      for (const TensorMeta& m : inputs) {
        std::vector<Placements> options(1 + rng() % 3, all_replicate(mesh.size()));
        for (Placements& o : options) {
          for (placement::Placement& p : o) {
            const auto r = static_cast<std::int32_t>(m.shape.size());
            switch (rng() % 4) {
              case 0:
                p = placement::Placement::partial(static_cast<placement::ReduceOp>(rng() % 4));
                break;
              case 1:
                if (r > 0) p = placement::Placement::shard(static_cast<std::int32_t>(rng() % r));
                break;
              case 2:
                if (r > 0) {
                  p = placement::Placement::strided_shard(static_cast<std::int32_t>(rng() % r),
                                                          1 + static_cast<std::int64_t>(rng() % 3));
                }
                break;
              default:
                break;
            }
          }
        }
        producers.push_back(std::move(options));
      }
    }
    CAPTURE(graph::op_name(node.op));
    auto r = enumerate_op(OpRequest{node, inputs, producers}, mesh, testing::h100());
    if (!r.ok()) {
      CHECK_FALSE(r.error().message.empty());
      continue;
    }
    ++ok;
    for (const Strategy& st : r->strategies) {
      CHECK(st.outputs.size() == node.outputs.size());
      CHECK(st.inputs.size() == inputs.size());
      CHECK(st.compute_us >= 0);
    }
  }
  CHECK(ok > 1000);
}

TEST_CASE("rule_for and reads_producers") {
  graph::Node n;
  n.op = OpKind::kToCopy;
  CHECK(rule_for(n) == Rule::kCast);
  CHECK(reads_producers(n, {}));
  n.op = OpKind::kAlias;
  CHECK(rule_for(n) == Rule::kAlias);
  CHECK_FALSE(reads_producers(n, {}));
  n.op = OpKind::kMm;
  CHECK_FALSE(reads_producers(n, {}));
  EnumerateOptions strided;
  strided.strided_mm = true;
  CHECK(reads_producers(n, strided));
  n.op = OpKind::kOutput;
  CHECK(rule_for(n) == Rule::kOutput);
  n.op = OpKind::kOther;
  n.target = "aten.var.correction";
  CHECK(rule_for(n) == Rule::kReduction);
  CHECK(reads_producers(n, {}));
}

}  // namespace
}  // namespace dtplan::strategy
