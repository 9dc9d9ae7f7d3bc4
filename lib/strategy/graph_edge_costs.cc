#include "strategy/graph_edge_costs.h"

#include <string>

namespace dtplan::strategy {

EdgeMatrixKey GraphEdgeCosts::key(graph::NodeId p, graph::NodeId c, std::int32_t slot,
                                  const std::vector<std::int32_t>& us,
                                  const std::vector<std::int32_t>& vs) {
  auto set_id = [&](const OpStrategy& op, const std::vector<std::int32_t>& list) {
    return list.empty() || list.size() == op.size() ? 0 : coster_.label_set_id(list);
  };
  EdgeMatrixKey k = edge_class(p, c, slot);
  k.producer_labels = set_id(strategies_.of(p), us);
  k.consumer_labels = set_id(strategies_.of(c), vs);
  return k;
}

EdgeMatrixKey GraphEdgeCosts::edge_class(graph::NodeId p, graph::NodeId c,
                                         std::int32_t slot) const {
  return {strategies_.distinct_index(p),
          static_cast<std::int32_t>(producer_output_index(graph_.node(c))),
          strategies_.distinct_index(c),
          slot,
          0,
          0};
}

std::pair<std::vector<Placements>, std::vector<Placements>> GraphEdgeCosts::ends(
    graph::NodeId p, graph::NodeId c, std::int32_t slot, const std::vector<std::int32_t>& us,
    const std::vector<std::int32_t>& vs) const {
  const OpStrategy& pop = strategies_.of(p);
  const OpStrategy& cop = strategies_.of(c);
  std::vector<Placements> sources = output_options(pop, producer_output_index(graph_.node(c)));
  if (!us.empty()) {
    std::vector<Placements> picked;
    picked.reserve(us.size());
    for (std::int32_t u : us) picked.push_back(sources[static_cast<std::size_t>(u)]);
    sources = std::move(picked);
  }
  std::vector<Placements> inputs;
  inputs.reserve(vs.empty() ? cop.size() : vs.size());
  for (std::size_t k = 0; k < (vs.empty() ? cop.size() : vs.size()); ++k) {
    const std::size_t v = vs.empty() ? k : static_cast<std::size_t>(vs[k]);
    inputs.push_back(cop.strategies[v].inputs[static_cast<std::size_t>(slot)]);
  }
  return {std::move(sources), std::move(inputs)};
}

core::Error GraphEdgeCosts::in_context(const core::Error& error, graph::NodeId c,
                                       std::int32_t slot) const {
  return error.with_context(graph::node_label(graph_.node(c).name) + " input " +
                            std::to_string(slot));
}

const graph::TensorMeta& GraphEdgeCosts::tensor(graph::NodeId p, graph::NodeId c) const {
  return graph_.node(p).outputs[producer_output_index(graph_.node(c))];
}

core::Result<EdgeMatrix> GraphEdgeCosts::matrix(graph::NodeId p, graph::NodeId c, std::int32_t slot,
                                                const std::vector<std::int32_t>& us,
                                                const std::vector<std::int32_t>& vs,
                                                EdgeCost what) {
  const EdgeMatrixKey k = key(p, c, slot, us, vs);
  // A memoised matrix is read before its placements are listed: the identical layers ask for it
  // again and again.
  if (EdgeMatrix m =
          what == EdgeCost::kExact ? coster_.memoised(k) : coster_.memoised_cheapest(k)) {
    return m;
  }
  const auto [sources, inputs] = ends(p, c, slot, us, vs);
  auto built = what == EdgeCost::kExact ? coster_.matrix(k, tensor(p, c), sources, inputs)
                                        : coster_.cheapest(k, tensor(p, c), sources, inputs);
  if (!built.ok()) return in_context(built.error(), c, slot);
  return built;
}

core::Result<std::shared_ptr<const SeededBounds>> GraphEdgeCosts::seeded(
    graph::NodeId p, graph::NodeId c, std::int32_t slot, const std::vector<std::int32_t>& us,
    std::span<const double> seeds, const std::vector<std::int32_t>& vs) {
  const EdgeMatrixKey k = key(p, c, slot, us, vs);
  if (auto hit = coster_.memoised_seeded(k, seeds)) return hit;
  const auto [sources, inputs] = ends(p, c, slot, us, vs);
  auto built = coster_.seeded_cheapest(k, tensor(p, c), sources, seeds, inputs);
  if (!built.ok()) return in_context(built.error(), c, slot);
  return built;
}

}  // namespace dtplan::strategy
