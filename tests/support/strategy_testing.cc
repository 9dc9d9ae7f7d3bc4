#include "support/strategy_testing.h"

#include <doctest/doctest.h>

#include <map>

#include "graph/llama3_builder.h"
#include "graph/shape_infer.h"
#include "placement/placement_text.h"
#include "strategy/ops/ops.h"
#include "support/profiles.h"

namespace dtplan::strategy::testing {

Placements pl(const std::string& text) {
  auto list = placement::parse_placement_list(text, "test");
  REQUIRE_MESSAGE(list.ok(), text);
  return list->placements;
}

const cost::HardwareProfile& h100() {
  static const cost::HardwareProfile p = dtplan::testing::profile("h100-dgx");
  return p;
}

const OpStrategy& Enumerated::of(const std::string& name) const {
  auto id = graph.find(name);
  REQUIRE_MESSAGE(id.has_value(), name);
  return strategies.of(*id);
}

Enumerated enumerate(graph::Graph graph, std::vector<std::int64_t> mesh,
                     const EnumerateOptions& options) {
  auto s = enumerate_graph(graph, mesh, h100(), options);
  if (!s.ok()) FAIL(s.error().message);
  return Enumerated{std::move(graph), std::move(s).value()};
}

graph::Graph finish(graph::GraphBuilder&& b) {
  auto g = std::move(b).finish();
  if (!g.ok()) FAIL(g.error().message);
  return std::move(g).value();
}

const Enumerated& llama3_8b_8x8(std::int64_t layers) {
  static std::map<std::int64_t, Enumerated> cache;
  auto it = cache.find(layers);
  if (it == cache.end()) {
    graph::Llama3Config c;
    c.n_layers = layers;
    auto g = graph::build_llama3(c);
    REQUIRE(g.ok());
    it = cache.emplace(layers, enumerate(std::move(g).value(), {8, 8})).first;
  }
  return it->second;
}

core::Result<OpStrategy> try_op(graph::OpKind kind, std::vector<graph::TensorMeta> inputs,
                                graph::Attributes attrs, std::vector<std::int64_t> mesh,
                                std::vector<std::vector<Placements>> producers,
                                const EnumerateOptions& options,
                                std::vector<graph::TensorMeta> outputs, std::string target) {
  graph::Node node;
  node.name = "op";
  node.op = kind;
  node.target = std::move(target);
  node.attrs = std::move(attrs);
  for (std::size_t i = 0; i < inputs.size(); ++i) node.inputs.push_back(graph::node_id(i));
  if (outputs.empty()) {
    std::vector<const graph::TensorMeta*> in;
    for (const graph::TensorMeta& m : inputs) in.push_back(&m);
    auto inferred = graph::infer_outputs(node, in);
    REQUIRE_MESSAGE(inferred.ok(), (inferred.ok() ? "" : inferred.error().message));
    outputs = inferred->outputs;
  }
  node.outputs = std::move(outputs);
  return enumerate_op(OpRequest{node, std::move(inputs), std::move(producers)}, mesh, h100(),
                      options);
}

OpStrategy run_op(graph::OpKind kind, std::vector<graph::TensorMeta> inputs,
                  graph::Attributes attrs, std::vector<std::int64_t> mesh,
                  std::vector<std::vector<Placements>> producers, const EnumerateOptions& options,
                  std::vector<graph::TensorMeta> outputs, std::string target) {
  auto op = try_op(kind, std::move(inputs), std::move(attrs), std::move(mesh), std::move(producers),
                   options, std::move(outputs), std::move(target));
  if (!op.ok()) FAIL(op.error().message);
  return std::move(op).value();
}

std::vector<Placements> leaf_options_of(const graph::Shape& shape,
                                        const std::vector<std::int64_t>& mesh) {
  return ops::leaf_options(shape, mesh);
}

std::vector<Placements> pls(const std::vector<std::string>& texts) {
  std::vector<Placements> out;
  for (const std::string& t : texts) out.push_back(pl(t));
  return out;
}

std::vector<std::string> formatted(const OpStrategy& op) {
  std::vector<std::string> out;
  for (const Strategy& s : op.strategies) out.push_back(format_strategy(s));
  return out;
}

int find_strategy(const OpStrategy& op, const std::vector<std::string>& outputs,
                  const std::vector<std::string>& inputs) {
  std::vector<Placements> outs, ins;
  for (const std::string& o : outputs) outs.push_back(pl(o));
  for (const std::string& i : inputs) ins.push_back(pl(i));
  for (std::size_t s = 0; s < op.strategies.size(); ++s) {
    if (op.strategies[s].outputs == outs && op.strategies[s].inputs == ins) {
      return static_cast<int>(s);
    }
  }
  return -1;
}

}  // namespace dtplan::strategy::testing
