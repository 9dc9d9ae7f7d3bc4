#include "strategy/family_counts.h"

#include <doctest/doctest.h>

#include "support/strategy_testing.h"

namespace dtplan::strategy {
namespace {

TEST_CASE("family_counts: LLaMA3-8B (2 layers) on 8x8") {
  const auto& e = testing::llama3_8b_8x8();
  const StrategyCounts c = family_counts(e.graph, e.strategies);
  // Totals add up over families and exclude the output node.
  FamilyCount sum;
  for (const FamilyCount& f : c.families) {
    CHECK(f.nodes > 0);
    CHECK(f.min_strategies <= f.max_strategies);
    CHECK(f.strategies >= f.nodes * f.min_strategies);
    CHECK(f.strategies <= f.nodes * f.max_strategies);
    CHECK(f.distinct <= f.nodes);
    sum.nodes += f.nodes;
    sum.strategies += f.strategies;
    sum.followers += f.followers;
  }
  CHECK(sum.nodes == static_cast<std::int64_t>(e.graph.size()) - 1);
  CHECK(c.total.nodes == sum.nodes);
  CHECK(c.total.strategies == sum.strategies);
  CHECK(c.total.strategies == e.strategies.total_strategies());
  CHECK(c.total.followers == sum.followers);
  CHECK(c.total.distinct == static_cast<std::int64_t>(e.strategies.distinct_count()) - 1);
  // Families in Rule order; the einsum row: 7 forward + 14 backward einsums per layer plus the
  // output projection's 3, all with 24 strategies.
  for (std::size_t i = 1; i < c.families.size(); ++i) {
    CHECK(c.families[i - 1].rule < c.families[i].rule);
  }
  const auto einsum = std::find_if(c.families.begin(), c.families.end(),
                                   [](const FamilyCount& f) { return f.rule == Rule::kEinsum; });
  REQUIRE(einsum != c.families.end());
  CHECK(einsum->nodes == 2 * 21 + 3);
  CHECK(einsum->min_strategies == 24);
  CHECK(einsum->max_strategies == 24);
  CHECK(einsum->strategies == 24 * einsum->nodes);
  const auto attention =
      std::find_if(c.families.begin(), c.families.end(),
                   [](const FamilyCount& f) { return f.rule == Rule::kAttention; });
  REQUIRE(attention != c.families.end());
  CHECK(attention->nodes == 4);
  CHECK(attention->strategies == 28);
  CHECK(attention->distinct == 2);
}

}  // namespace
}  // namespace dtplan::strategy
