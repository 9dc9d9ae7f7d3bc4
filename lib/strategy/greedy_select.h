#pragma once
// select_strategy(): DTensor-style strategy selection for one op whose inputs already have
// placements (what DTensor's sharding propagation does at runtime, and what the greedy solver
// does at every node of the exported problem, solve/solver.h): each strategy costs its compute
// time plus, for every input slot, the redistribution from the input's placements to the
// placements the strategy expects (edge_cost.h: +inf where DTensor cannot redistribute); the
// cheapest wins, and among equal costs the lowest strategy index (enumeration order, enumerate.h).
//
// Replicate -> P(sum) is a priced local op (the divide by the group size), so a strategy that
// turns an R input into a P(sum) one is never as cheap as the all-Replicate one it detours
// around. Example (PyTorch #172282): mul(a: P(max),P(max),P(max), b: R,R,R) on a
// 2x2x2 mesh: all-Replicate costs all_reduce(a) and nothing for b; [P(sum); R, P(sum)] would cost
// the same all_reduce(a) plus R -> P(sum) partitions of b, so R,R,R wins on cost, not on order.

#include <cstdint>
#include <span>
#include <vector>

#include "core/result.h"
#include "graph/tensor_meta.h"
#include "strategy/edge_cost.h"
#include "strategy/strategy.h"

namespace dtplan::strategy {

// An input of the op: the tensor and the placements it has.
struct PlacedInput {
  graph::TensorMeta meta;
  Placements placements;
};

struct StrategyChoice {
  std::int32_t index = -1;       // the chosen strategy
  double cost_us = 0;            // its compute + redistribution cost
  std::vector<double> costs_us;  // every strategy's cost, in strategy order
  bool operator==(const StrategyChoice&) const = default;
};

// @pre inputs.size() equals every strategy's input count.
// @post error (kUnsupported) when every strategy costs +inf; errors of the coster propagate.
core::Result<StrategyChoice> select_strategy(const OpStrategy& op,
                                             std::span<const PlacedInput> inputs,
                                             EdgeCoster& coster);

}  // namespace dtplan::strategy
