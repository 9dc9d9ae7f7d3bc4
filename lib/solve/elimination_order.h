#pragma once
// Internal to lib/solve: a greedy elimination order for bucket elimination.
//
// Variables interact when they share a factor scope. The order eliminates, at every step, the
// eliminable variable that is simplicial (its neighbours already form a clique: no fill-in) if one
// exists, else the one whose message table (Π domains of its current neighbours) is smallest, then
// the one with the least fill-in, then the lowest variable id (a written tie rule, so the order is
// a pure function of the input). On the thin graphs of layered models (chains with residual skip
// edges) this finds widths of 2 to 4.
//
// Example: a chain 0 - 1 - 2 with domains {4, 9, 4}. 0 and 2 are simplicial with message 9 (the
// domain of 1); 0 wins on the lower id. Then 1 has message 4 (neighbour 2) and 2 has message 9, so
// 1 goes, then 2. Order {0, 1, 2}, largest message 9 entries, width 1.

#include <cstdint>
#include <vector>

namespace dtplan::solve::detail {

struct OrderPlan {
  std::vector<std::int32_t> order;  // the eliminable variables, in elimination order
  double max_message_entries = 1;   // largest message table (Π domains of a separator)
  double total_work = 0;            // Σ message entries × eliminated domain
  std::int32_t width = 0;           // largest separator size
};

// @pre every scope variable is < domains.size(); eliminable has domains.size() entries.
OrderPlan plan_order(const std::vector<std::int32_t>& domains,
                     const std::vector<std::vector<std::int32_t>>& scopes,
                     const std::vector<char>& eliminable);

// The scopes bucket elimination along `order` leaves over (variables outside `order`), computed
// on scopes alone. Example: scopes {0,1}, {1,2}, order {0}: eliminating 0 turns {0,1} into {1};
// {1,2} is untouched. Result {{1,2}, {1}} (untouched scopes first, then messages as created).
std::vector<std::vector<std::int32_t>> remaining_scopes(
    const std::vector<std::vector<std::int32_t>>& scopes, const std::vector<std::int32_t>& order,
    std::size_t variables);

}  // namespace dtplan::solve::detail
