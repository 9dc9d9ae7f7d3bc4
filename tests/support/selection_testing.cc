#include "support/selection_testing.h"

#include <doctest/doctest.h>

#include <map>

#include "graph/llama3_builder.h"
#include "graph/test_models.h"
#include "redist/planner.h"
#include "support/redist_support.h"
#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {

const graph::Graph& tiny_llama3_graph(std::int64_t layers) {
  static std::map<std::int64_t, graph::Graph> cache;
  auto it = cache.find(layers);
  if (it == cache.end()) {
    auto g = graph::build_llama3(graph::test_models::tiny_llama3(layers));
    REQUIRE_MESSAGE(g.ok(), (g.ok() ? "" : g.error().message));
    it = cache.emplace(layers, std::move(g).value()).first;
  }
  return it->second;
}

redist::MeshContext context(std::vector<std::int64_t> shape, std::vector<std::string> names,
                            std::vector<std::vector<std::string>> flatten) {
  return dtplan::testing::mesh_context(std::move(shape), std::move(names), std::move(flatten));
}

std::unique_ptr<EdgeCoster> make_coster(redist::MeshContext ctx, redist::CostModelKind model) {
  return std::make_unique<EdgeCoster>(dtplan::testing::make_planner(std::move(ctx), model));
}

ModelPlan plan_or_fail(const graph::Graph& graph, const redist::MeshContext& ctx,
                       const ModelPlanOptions& options) {
  auto out = plan_graph(graph, ctx.mesh(), h100(), options);
  REQUIRE_MESSAGE(out.ok(), (out.ok() ? "" : out.error().message));
  return std::move(out).value();
}

std::int32_t strategy_index(const OpStrategy& op, const std::string& text) {
  for (std::size_t i = 0; i < op.strategies.size(); ++i) {
    if (format_strategy(op.strategies[i]) == text) return static_cast<std::int32_t>(i);
  }
  return -1;
}

}  // namespace dtplan::strategy::testing
