// The greedy elimination order: elimination_order.h's example and small widths on thin graphs.

#include "solve/elimination_order.h"

#include <doctest/doctest.h>

namespace dtplan::solve::detail {
namespace {

TEST_CASE("plan_order: the chain example") {
  const OrderPlan plan = plan_order({4, 9, 4}, {{0, 1}, {1, 2}}, {1, 1, 1});
  CHECK(plan.order == std::vector<std::int32_t>{0, 1, 2});
  CHECK(plan.max_message_entries == 9);
  CHECK(plan.width == 1);
}

TEST_CASE("plan_order: thin graphs get small widths; non-eliminable variables stay") {
  // A chain of 30 with skip edges i -> i+2 (every other node) and a residual 0 -> 15 -> 29.
  std::vector<std::vector<std::int32_t>> scopes;
  for (int i = 1; i < 30; ++i) scopes.push_back({i - 1, i});
  for (int i = 0; i + 2 < 30; i += 2) scopes.push_back({i, i + 2});
  scopes.push_back({0, 15});
  scopes.push_back({15, 29});
  const std::vector<std::int32_t> domains(30, 15);
  const OrderPlan plan = plan_order(domains, scopes, std::vector<char>(30, 1));
  CHECK(plan.order.size() == 30);
  CHECK(plan.width <= 3);
  // A 4x4 grid has treewidth 4.
  std::vector<std::vector<std::int32_t>> grid;
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 4; ++c) {
      if (c > 0) grid.push_back({r * 4 + c - 1, r * 4 + c});
      if (r > 0) grid.push_back({(r - 1) * 4 + c, r * 4 + c});
    }
  }
  const OrderPlan g = plan_order(std::vector<std::int32_t>(16, 2), grid, std::vector<char>(16, 1));
  CHECK(g.width >= 4);
  CHECK(g.width <= 5);
  std::vector<char> some(16, 1);
  some[5] = some[6] = 0;
  const OrderPlan partial = plan_order(std::vector<std::int32_t>(16, 2), grid, some);
  CHECK(partial.order.size() == 14);
  CHECK(plan_order(domains, scopes, std::vector<char>(30, 1)).order ==
        plan.order);  // deterministic
}

}  // namespace
}  // namespace dtplan::solve::detail
