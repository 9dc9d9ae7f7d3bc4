#include "strategy/greedy_select.h"

#include <cmath>

#include "placement/placement_text.h"

namespace dtplan::strategy {

core::Result<StrategyChoice> select_strategy(const OpStrategy& op,
                                             std::span<const PlacedInput> inputs,
                                             EdgeCoster& coster) {
  StrategyChoice out;
  out.costs_us.reserve(op.size());
  for (std::size_t i = 0; i < op.strategies.size(); ++i) {
    const Strategy& s = op.strategies[i];
    double cost = s.compute_us;
    for (std::size_t slot = 0; slot < inputs.size() && slot < s.inputs.size(); ++slot) {
      DTPLAN_TRY(double c,
                 coster.cost_us(inputs[slot].meta, inputs[slot].placements, s.inputs[slot]));
      cost += c;
    }
    out.costs_us.push_back(cost);
    // Strictly cheaper only: equal costs keep the lower index.
    if (!std::isinf(cost) && (out.index < 0 || cost < out.cost_us)) {
      out.index = static_cast<std::int32_t>(i);
      out.cost_us = cost;
    }
  }
  if (out.index < 0) {
    std::string placed;
    for (const PlacedInput& in : inputs) {
      if (!placed.empty()) placed += "; ";
      placed += placement::format_placements(in.placements);
    }
    return core::Error::unsupported("no strategy of " + std::to_string(op.size()) +
                                    " accepts inputs placed " + placed);
  }
  return out;
}

}  // namespace dtplan::strategy
