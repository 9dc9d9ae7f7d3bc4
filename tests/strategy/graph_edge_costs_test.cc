// GraphEdgeCosts over a small graph: the exact matrix of an edge over strategy lists is each
// pair's EdgeCoster::cost_us, shared through the coster's memo; the cheap bounds and the seeded
// ones stay below the exact entries.

#include "strategy/graph_edge_costs.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "graph/graph_builder.h"
#include "support/selection_testing.h"
#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {

TEST_CASE("graph edge costs: matrices over strategy lists, bounds below them, one memo") {
  graph::GraphBuilder b("relu");
  const graph::NodeId x = b.placeholder("x", core::OpRole::kInput, f32({8, 8}));
  b.op(OpKind::kRelu, "y", {x});
  const Enumerated e = enumerate(finish(std::move(b)), {2, 2});
  auto coster = make_coster(context({2, 2}, {"dp", "tp"}));
  GraphEdgeCosts costs{e.graph, e.strategies, *coster};
  const graph::NodeId y = e.graph.find("y").value();
  const OpStrategy& xs = e.of("x");
  const OpStrategy& ys = e.of("y");
  REQUIRE(xs.size() > 3);
  REQUIRE(ys.size() > 3);
  const std::vector<std::int32_t> us = {0, 2, 3};
  const std::vector<std::int32_t> vs = {1, 2};
  const EdgeMatrix m = costs.matrix(x, y, 0, us, vs, EdgeCost::kExact).value();
  REQUIRE(m->size() == us.size() * vs.size());
  for (std::size_t j = 0; j < us.size(); ++j) {
    for (std::size_t o = 0; o < vs.size(); ++o) {
      const double c =
          coster
              ->cost_us(f32({8, 8}), xs.strategies[static_cast<std::size_t>(us[j])].outputs[0],
                        ys.strategies[static_cast<std::size_t>(vs[o])].inputs[0])
              .value();
      CHECK((*m)[j * vs.size() + o] == c);
    }
  }
  CHECK(costs.matrix(x, y, 0, us, vs, EdgeCost::kExact).value().get() == m.get());
  const EdgeMatrix all = costs.matrix(x, y, 0, {}, {}, EdgeCost::kExact).value();
  CHECK(all->size() == xs.size() * ys.size());
  const EdgeMatrix low = costs.matrix(x, y, 0, us, vs, EdgeCost::kCheapestBound).value();
  const std::vector<double> seeds = {3.0, 0.0, 1.0};
  const auto seeded = costs.seeded(x, y, 0, us, seeds, vs).value();
  for (std::size_t o = 0; o < vs.size(); ++o) {
    double best = std::numeric_limits<double>::infinity();
    double seeded_best = best;
    for (std::size_t j = 0; j < us.size(); ++j) {
      best = std::min(best, (*m)[j * vs.size() + o]);
      seeded_best = std::min(seeded_best, seeds[j] + (*m)[j * vs.size() + o]);
    }
    CHECK((*low)[o] <= best + 1e-6);
    CHECK(seeded->value[o] <= seeded_best + 1e-6);
    REQUIRE(seeded->from[o] >= 0);
    CHECK(seeded->value[o] >= seeds[static_cast<std::size_t>(seeded->from[o])]);
  }
  CHECK(costs.seeded(x, y, 0, us, seeds, vs).value().get() == seeded.get());
}

}  // namespace dtplan::strategy::testing
