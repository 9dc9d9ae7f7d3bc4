#include "graph/layer_groups.h"

#include <doctest/doctest.h>

#include "graph/llama3_builder.h"
#include "graph/validate.h"
#include "test_models.h"

namespace dtplan::graph {
namespace {

Llama3Config small(std::int64_t layers) { return test_models::tiny_llama3(layers); }

TEST_CASE("layer groups: the builder's layers are one isomorphic group") {
  for (std::int64_t layers : {2, 3, 6}) {
    Graph g = build_llama3(small(layers)).value();
    auto groups = find_repeated_layers(g);
    REQUIRE(groups.size() == 1);
    std::vector<std::int32_t> all;
    for (std::int32_t i = 0; i < layers; ++i) all.push_back(i);
    CHECK(groups[0].layers == all);
    auto forms = layer_forms(g);
    REQUIRE(forms.size() == static_cast<std::size_t>(layers));
    for (const LayerForm& f : forms) {
      CHECK(f.hash == forms[0].hash);
      CHECK(f.nodes.size() == 253);
    }
    CHECK(check_repeats(g, groups).ok());
  }
  // LLaMA3-8B dimensions: the same structure.
  Llama3Config c8;
  c8.n_layers = 3;
  Graph g8 = build_llama3(c8).value();
  CHECK(find_repeated_layers(g8) == std::vector<RepeatGroup>{RepeatGroup{{0, 1, 2}}});
}

TEST_CASE("layer groups: a changed layer leaves the group and the annotation check names it") {
  Graph g = build_llama3(small(4)).value();
  const NodeId victim = *g.find("layers.2.attention_norm.add_eps");
  g.mutable_node(victim).attrs.set("other", 1e-6);
  CHECK(find_repeated_layers(g) == std::vector<RepeatGroup>{RepeatGroup{{0, 1, 3}}});
  auto status = validate(g);  // the builder's annotation {0,1,2,3} no longer holds
  REQUIRE_FALSE(status.ok());
  CHECK(status.error().message ==
        "graph field 'repeated_layers'[0]: layer 2 differs from layer 0 at node 15 of the layer "
        "('layers.2.attention_norm.add_eps' vs 'layers.0.attention_norm.add_eps')");
  // Rewiring inside a layer changes its form too (same ops, different edges).
  Graph h = build_llama3(small(3)).value();
  Node& gate = h.mutable_node(*h.find("layers.1.feed_forward.gate"));
  std::swap(gate.inputs[0], gate.inputs[1]);
  CHECK(find_repeated_layers(h) == std::vector<RepeatGroup>{RepeatGroup{{0, 2}}});
  // Overlapping groups and unordered layers are rejected.
  Graph k = build_llama3(small(3)).value();
  CHECK(check_repeats(k, {RepeatGroup{{0, 1}}, RepeatGroup{{1, 2}}}).error().message ==
        "graph field 'repeated_layers'[1]: layer 1 is already in group 0");
  CHECK(check_repeats(k, {RepeatGroup{{1, 0}}}).error().message ==
        "graph field 'repeated_layers'[0]: layers must be distinct and ascending");
}

TEST_CASE("layer groups: node signatures ignore names and layers") {
  Graph g = build_llama3(small(2)).value();
  CHECK(node_signature(g, *g.find("layers.0.feed_forward.gate")) ==
        node_signature(g, *g.find("layers.1.feed_forward.gate")));
  CHECK(node_signature(g, *g.find("layers.0.feed_forward.gate")) !=
        node_signature(g, *g.find("layers.0.feed_forward.silu.mul")));
}

}  // namespace
}  // namespace dtplan::graph
