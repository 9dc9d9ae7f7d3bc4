#include "strategy/family_counts.h"

#include <algorithm>
#include <array>
#include <set>

namespace dtplan::strategy {
namespace {

constexpr std::size_t kRules = static_cast<std::size_t>(Rule::kOutput) + 1;

void add(FamilyCount& row, const OpStrategy& op) {
  const auto n = static_cast<std::int64_t>(op.size());
  row.min_strategies = row.nodes == 0 ? n : std::min(row.min_strategies, n);
  row.max_strategies = row.nodes == 0 ? n : std::max(row.max_strategies, n);
  ++row.nodes;
  row.strategies += n;
  row.followers += op.is_follower() ? 1 : 0;
}

}  // namespace

StrategyCounts family_counts(const graph::Graph& graph, const GraphStrategies& strategies) {
  std::array<FamilyCount, kRules> rows{};
  std::array<std::set<std::int32_t>, kRules> distinct;
  StrategyCounts out;
  std::set<std::int32_t> all_distinct;
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const graph::NodeId id = graph::node_id(i);
    const OpStrategy& op = strategies.of(id);
    if (op.rule == Rule::kOutput) continue;
    const auto r = static_cast<std::size_t>(op.rule);
    rows[r].rule = op.rule;
    add(rows[r], op);
    add(out.total, op);
    distinct[r].insert(strategies.distinct_index(id));
    all_distinct.insert(strategies.distinct_index(id));
  }
  for (std::size_t r = 0; r < kRules; ++r) {
    if (rows[r].nodes == 0) continue;
    rows[r].distinct = static_cast<std::int64_t>(distinct[r].size());
    out.families.push_back(rows[r]);
  }
  out.total.distinct = static_cast<std::int64_t>(all_distinct.size());
  return out;
}

}  // namespace dtplan::strategy
