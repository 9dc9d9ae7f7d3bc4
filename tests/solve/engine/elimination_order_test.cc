// The greedy elimination order: elimination_order.h's example and small widths on thin graphs.

#include "solve/engine/elimination_order.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <random>
#include <tuple>

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

TEST_CASE("plan_order: the least total work of the three rules") {
  // A wheel: hub 0 (domain 50) joined to rim nodes 1..4 (domain 2) that form a cycle 1-2-3-4-1.
  // The returned plan is the least-work order of the three rules; here that is the optimum over
  // all 120 orders (found by brute force below).
  std::vector<std::vector<std::int32_t>> scopes = {{0, 1}, {0, 2}, {0, 3}, {0, 4},
                                                   {1, 2}, {2, 3}, {3, 4}, {4, 1}};
  const std::vector<std::int32_t> domains = {50, 2, 2, 2, 2};
  const OrderPlan plan = plan_order(domains, scopes, std::vector<char>(5, 1));
  CHECK(plan.order.size() == 5);
  std::vector<std::int32_t> perm = {0, 1, 2, 3, 4};
  double best = 1e300;
  do {
    double work = 0;
    std::vector<std::vector<char>> adj(5, std::vector<char>(5, 0));
    for (const auto& s : scopes) adj[s[0]][s[1]] = adj[s[1]][s[0]] = 1;
    std::vector<char> gone(5, 0);
    for (std::int32_t v : perm) {
      double message = 1;
      std::vector<std::int32_t> n;
      for (std::int32_t u = 0; u < 5; ++u) {
        if (!gone[u] && adj[v][u]) {
          message *= domains[u];
          n.push_back(u);
        }
      }
      for (std::int32_t a : n) {
        for (std::int32_t b : n) {
          if (a != b) adj[a][b] = 1;
        }
      }
      gone[v] = 1;
      work += message * domains[v];
    }
    best = std::min(best, work);
  } while (std::next_permutation(perm.begin(), perm.end()));
  CHECK(plan.total_work == best);
}

// The three rules as the header states them, on an adjacency matrix (every key recomputed from
// scratch each step): the reference plan_order must match order for order.
OrderPlan reference_order(const std::vector<std::int32_t>& domains,
                          const std::vector<std::vector<std::int32_t>>& scopes,
                          const std::vector<char>& eliminable) {
  const auto n = static_cast<std::int32_t>(domains.size());
  OrderPlan best;
  best.total_work = std::numeric_limits<double>::infinity();
  for (int rule = 0; rule < 3; ++rule) {
    std::vector<std::vector<char>> adj(n, std::vector<char>(n, 0));
    for (const auto& s : scopes) {
      for (std::int32_t a : s) {
        for (std::int32_t b : s) adj[a][b] = a != b;
      }
    }
    std::vector<char> gone(n, 0);
    // v's current neighbours and its message (the product of their domains).
    auto neighbours = [&](std::int32_t v, std::vector<std::int32_t>& nb) {
      nb.clear();
      double message = 1;
      for (std::int32_t u = 0; u < n; ++u) {
        if (!gone[u] && adj[v][u]) {
          nb.push_back(u);
          message *= domains[u];
        }
      }
      return message;
    };
    OrderPlan plan;
    std::vector<std::int32_t> nb;
    for (;;) {
      std::int32_t pick = -1;
      std::tuple<double, double, double> pick_key;
      for (std::int32_t v = 0; v < n; ++v) {
        if (!eliminable[v] || gone[v]) continue;
        const double message = neighbours(v, nb);
        double fill = 0, weighted = 0;
        for (std::size_t i = 0; i < nb.size(); ++i) {
          for (std::size_t j = i + 1; j < nb.size(); ++j) {
            if (adj[nb[i]][nb[j]]) continue;
            fill += 1;
            weighted += static_cast<double>(domains[nb[i]]) * domains[nb[j]];
          }
        }
        const std::tuple<double, double, double> key =
            rule == 0   ? std::make_tuple(fill > 0 ? 1.0 : 0.0, message, fill)
            : rule == 1 ? std::make_tuple(fill, message, 0.0)
                        : std::make_tuple(weighted, message, 0.0);
        if (pick < 0 || key < pick_key) {
          pick = v;
          pick_key = key;
        }
      }
      if (pick < 0) break;
      const double message = neighbours(pick, nb);
      for (std::int32_t a : nb) {
        for (std::int32_t b : nb) adj[a][b] = adj[a][b] || a != b;
      }
      gone[pick] = 1;
      plan.order.push_back(pick);
      plan.max_message_entries = std::max(plan.max_message_entries, message);
      plan.total_work += message * domains[pick];
      plan.width = std::max(plan.width, static_cast<std::int32_t>(nb.size()));
    }
    if (std::tie(plan.total_work, plan.max_message_entries) <
        std::tie(best.total_work, best.max_message_entries)) {
      best = plan;
    }
  }
  return best;
}

TEST_CASE("plan_order: the rules as written, on random graphs with hubs") {
  // 40 graphs of 12-30 variables (domains 1-9): random pairs and triples, plus 1-3 hubs joined
  // to most variables (the keys of a hub's neighbours are counted through the shorter of the
  // two lists, plan_order's own shortcut); some variables not eliminable.
  std::mt19937_64 rng(7);
  for (int g = 0; g < 40; ++g) {
    CAPTURE(g);
    const auto n = static_cast<std::int32_t>(12 + rng() % 19);
    std::vector<std::int32_t> domains(n);
    for (auto& d : domains) d = static_cast<std::int32_t>(1 + rng() % 9);
    std::vector<std::vector<std::int32_t>> scopes;
    for (std::int32_t k = 0; k < n; ++k) {
      const auto a = static_cast<std::int32_t>(rng() % n), b = static_cast<std::int32_t>(rng() % n);
      if (a != b) scopes.push_back({a, b});
      if (k % 4 == 0) {
        const auto c = static_cast<std::int32_t>(rng() % n);
        if (c != a && c != b && a != b) scopes.push_back({a, b, c});
      }
    }
    for (std::int32_t h = 0; h < 1 + g % 3; ++h) {
      for (std::int32_t v = 0; v < n; ++v) {
        if (v != h && rng() % 4 != 0) scopes.push_back({h, v});
      }
    }
    std::vector<char> eliminable(n, 1);
    for (std::int32_t v = 0; v < n; ++v) eliminable[v] = rng() % 8 != 0;
    const OrderPlan plan = plan_order(domains, scopes, eliminable);
    const OrderPlan ref = reference_order(domains, scopes, eliminable);
    CHECK(plan.order == ref.order);
    CHECK(plan.total_work == ref.total_work);
    CHECK(plan.max_message_entries == ref.max_message_entries);
    CHECK(plan.width == ref.width);
  }
}

TEST_CASE("plan_order: a work cap stops it unfinished only past the cap, else the same plan") {
  // The wheel above plus a 6x6 grid of domain-8 nodes: every cap at or above the plan's work
  // gives the same plan; any cap below it gives +inf work and a partial order.
  std::vector<std::vector<std::int32_t>> scopes = {{0, 1}, {0, 2}, {0, 3}, {0, 4},
                                                   {1, 2}, {2, 3}, {3, 4}, {4, 1}};
  std::vector<std::int32_t> domains = {50, 2, 2, 2, 2};
  for (int r = 0; r < 6; ++r) {
    for (int c = 0; c < 6; ++c) {
      const int v = 5 + r * 6 + c;
      if (c > 0) scopes.push_back({v - 1, v});
      if (r > 0) scopes.push_back({v - 6, v});
      domains.push_back(8);
    }
  }
  const std::vector<char> all(domains.size(), 1);
  const OrderPlan full = plan_order(domains, scopes, all);
  REQUIRE(full.order.size() == domains.size());
  for (const double cap : {full.total_work, full.total_work * 2, 1e300}) {
    const OrderPlan capped = plan_order(domains, scopes, all, cap);
    CHECK(capped.order == full.order);
    CHECK(capped.total_work == full.total_work);
  }
  for (const double cap : {0.0, 100.0, full.total_work / 2, full.total_work * (1 - 1e-12)}) {
    const OrderPlan capped = plan_order(domains, scopes, all, cap);
    CHECK(capped.total_work == std::numeric_limits<double>::infinity());
    CHECK(capped.order.size() < domains.size());
  }
}

TEST_CASE("plan_order: a passed deadline stops it unfinished; a distant one changes nothing") {
  // A 12x12 grid; the clock is read at every elimination, so a passed deadline stops the first.
  std::vector<std::vector<std::int32_t>> scopes;
  std::vector<std::int32_t> domains;
  for (int r = 0; r < 12; ++r) {
    for (int c = 0; c < 12; ++c) {
      const int v = r * 12 + c;
      if (c > 0) scopes.push_back({v - 1, v});
      if (r > 0) scopes.push_back({v - 12, v});
      domains.push_back(3);
    }
  }
  const std::vector<char> all(domains.size(), 1);
  const double none = std::numeric_limits<double>::infinity();
  const OrderPlan full = plan_order(domains, scopes, all);
  REQUIRE(full.order.size() == domains.size());
  const auto now = std::chrono::steady_clock::now();
  const OrderPlan later = plan_order(domains, scopes, all, none, now + std::chrono::hours(1));
  CHECK(later.order == full.order);
  CHECK(later.total_work == full.total_work);
  const OrderPlan passed = plan_order(domains, scopes, all, none, now - std::chrono::seconds(1));
  CHECK(passed.total_work == none);
  CHECK(passed.order.size() == 1);
}

}  // namespace
}  // namespace dtplan::solve::detail
