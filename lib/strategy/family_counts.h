#pragma once
// Strategy counts per family of a graph's enumeration: what `dtplan plan` prints before solving
// (how large the problem is, and where the options come from). Rows follow the Rule order and
// list only families present; the output node is not counted.
//
//   LLaMA3-8B, 2 layers, 8x8:  einsum  nodes 45  strategies 1080  min 24  max 24  distinct 3 ...

#include <cstdint>
#include <vector>

#include "graph/graph.h"
#include "strategy/graph_strategies.h"

namespace dtplan::strategy {

struct FamilyCount {
  Rule rule = Rule::kReplicate;
  std::int64_t nodes = 0;           // nodes of this family
  std::int64_t strategies = 0;      // sum of their strategy counts
  std::int64_t min_strategies = 0;  // fewest strategies of one node
  std::int64_t max_strategies = 0;  // most strategies of one node
  std::int64_t followers = 0;       // nodes that follow a producer (OpStrategy::is_follower)
  std::int64_t distinct = 0;        // distinct enumerations (cache entries) among them

  bool operator==(const FamilyCount&) const = default;
};

struct StrategyCounts {
  std::vector<FamilyCount> families;  // Rule order, present families only
  FamilyCount total;                  // all families (rule field unused)

  bool operator==(const StrategyCounts&) const = default;
};

// @pre strategies was enumerated from `graph`.
StrategyCounts family_counts(const graph::Graph& graph, const GraphStrategies& strategies);

}  // namespace dtplan::strategy
