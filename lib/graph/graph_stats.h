#pragma once
// Graph statistics the CLI prints with a plan: node counts by op kind, phase and layer, and the
// parameter count and bytes (the memory the parameter constraint budgets,
// docs/reference/strategy_selection.md §1.5).
//
//   auto s = graph_stats(build_llama3(cfg_8b).value()).value();
//   s.params == 8030261248; s.param_bytes == 32121044992;  // fp32 storage

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "graph/graph.h"

namespace dtplan::graph {

struct OpCount {
  OpKind op = OpKind::kOther;
  std::string target;  // for kOther: the aten target; one row per target
  std::int64_t count = 0;

  bool operator==(const OpCount&) const = default;
};

struct LayerStats {
  std::int32_t layer = -1;  // -1: everything outside the decoder layers
  std::int64_t nodes = 0;
  std::int64_t forward_nodes = 0;
  std::int64_t backward_nodes = 0;
  std::int64_t alias_nodes = 0;
  std::int64_t params = 0;       // elements of the layer's parameters
  std::int64_t param_bytes = 0;  // at their storage dtype

  bool operator==(const LayerStats&) const = default;
};

struct GraphStats {
  std::int64_t nodes = 0;
  std::int64_t forward_nodes = 0;
  std::int64_t backward_nodes = 0;
  std::vector<OpCount> op_counts;  // OpKind order, then target; nonzero rows only
  std::vector<LayerStats> layers;  // ascending layer id (-1 first)
  std::int64_t params = 0;         // elements over every role=param placeholder
  std::int64_t param_bytes = 0;
  std::int64_t buffer_bytes = 0;
  std::int64_t repeated_layers = 0;  // layers in some repeat group
  std::int64_t repeat_groups = 0;

  bool operator==(const GraphStats&) const = default;
};

// @post error only when a byte or element count overflows 64 bits.
core::Result<GraphStats> graph_stats(const Graph& graph);

// The count of `op` in `stats` (summed over targets for kOther); 0 when absent.
std::int64_t op_count(const GraphStats& stats, OpKind op);

}  // namespace dtplan::graph
