#include "solve/engine/elimination_order.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <tuple>

namespace dtplan::solve::detail {

namespace {

// The greedy rules tried, in this order (see the header).
enum class Rule : std::uint8_t { kMinMessage, kMinFill, kWeightedFill };
constexpr Rule kRules[] = {Rule::kMinMessage, Rule::kMinFill, Rule::kWeightedFill};

using Key = std::tuple<double, double, double, std::int32_t>;  // rule's criteria, then the var

class Graph {
 public:
  Graph(const std::vector<std::int32_t>& domains,
        const std::vector<std::vector<std::int32_t>>& scopes)
      : domains_(domains), adj_(domains.size()) {
    for (const auto& scope : scopes) {
      for (std::int32_t a : scope) {
        for (std::int32_t b : scope) {
          if (a != b) adj_[a].push_back(b);
        }
      }
    }
    for (auto& list : adj_) {
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
    }
  }

  // The rule's key of v. The edges among v's neighbours are counted from each end: a neighbour's
  // own list scanned against marks on v's neighbours, or, where that list is the longer (a hub),
  // v's neighbours looked up in it; each edge is found twice either way. Fill and weighted fill
  // are then what the missing pairs sum to: all pairs less the edges (sums of integer products,
  // exact while below 2^53, as the per-pair sum they replace was). A hub's key costs the lists of
  // its neighbours instead of its degree squared lookups (LLaMA3-70B's 80-layer windows: a node
  // in every layer).
  [[nodiscard]] Key key(std::int32_t v, Rule rule) const {
    const auto& n = adj_[v];
    double message = 1;
    for (std::int32_t u : n) message *= domains_[u];
    if (++stamp_ == 0) {  // wrapped: old marks could match again
      std::fill(mark_.begin(), mark_.end(), 0);
      stamp_ = 1;
    }
    for (std::int32_t u : n) mark_[u] = stamp_;
    std::int64_t edges2 = 0;      // edges among the neighbours, each counted twice
    double edge_weight2 = 0;      // Σ over them of the product of the two domains, twice
    double sum = 0, squares = 0;  // of the neighbours' domains
    const double lookup =
        static_cast<double>(n.size()) * std::log2(static_cast<double>(n.size()) + 1);
    for (std::int32_t u : n) {
      const double du = domains_[u];
      sum += du;
      squares += du * du;
      auto edge = [&](std::int32_t w) {
        ++edges2;
        edge_weight2 += du * domains_[w];
      };
      const auto& list = adj_[u];
      if (static_cast<double>(list.size()) <= lookup) {
        for (std::int32_t w : list) {
          if (mark_[w] == stamp_) edge(w);
        }
      } else {
        for (std::int32_t w : n) {
          if (w != u && std::binary_search(list.begin(), list.end(), w)) edge(w);
        }
      }
    }
    const auto d = static_cast<std::int64_t>(n.size());
    const double fill = static_cast<double>(d * (d - 1) / 2 - edges2 / 2);
    const double weighted_fill = (sum * sum - squares - edge_weight2) / 2;
    switch (rule) {
      case Rule::kMinFill:
        return {fill, message, 0, v};
      case Rule::kWeightedFill:
        return {weighted_fill, message, 0, v};
      case Rule::kMinMessage:
        break;
    }
    return {fill > 0 ? 1 : 0, message, fill, v};
  }

  // Removes v, joining its neighbours into a clique.
  void eliminate(std::int32_t v) {
    const std::vector<std::int32_t> n = adj_[v];
    for (std::int32_t u : n) {
      auto& list = adj_[u];
      list.erase(std::lower_bound(list.begin(), list.end(), v));
      std::vector<std::int32_t> merged;
      merged.reserve(list.size() + n.size());
      std::set_union(list.begin(), list.end(), n.begin(), n.end(), std::back_inserter(merged));
      merged.erase(std::lower_bound(merged.begin(), merged.end(), u));
      list = std::move(merged);
    }
    adj_[v].clear();
  }

  [[nodiscard]] const std::vector<std::int32_t>& neighbours(std::int32_t v) const {
    return adj_[v];
  }

 private:
  const std::vector<std::int32_t>& domains_;
  std::vector<std::vector<std::int32_t>> adj_;
  mutable std::vector<std::uint32_t> mark_ = std::vector<std::uint32_t>(adj_.size(), 0);
  mutable std::uint32_t stamp_ = 0;  // key()'s marks on v's neighbours
};

}  // namespace

namespace {

OrderPlan greedy_order(const std::vector<std::int32_t>& domains,
                       const std::vector<std::vector<std::int32_t>>& scopes,
                       const std::vector<char>& eliminable, Rule rule, double max_work,
                       std::chrono::steady_clock::time_point deadline) {
  Graph graph(domains, scopes);
  const auto n = static_cast<std::int32_t>(domains.size());
  std::vector<Key> current(domains.size());
  std::set<Key> queue;
  for (std::int32_t v = 0; v < n; ++v) {
    if (!eliminable[v]) continue;
    current[v] = graph.key(v, rule);
    queue.insert(current[v]);
  }
  std::vector<char> done(domains.size(), 0);
  OrderPlan plan;
  while (!queue.empty()) {
    const Key best = *queue.begin();
    queue.erase(queue.begin());
    const std::int32_t v = std::get<3>(best);
    double message = 1;
    for (std::int32_t u : graph.neighbours(v)) message *= domains[u];
    plan.order.push_back(v);
    plan.max_message_entries = std::max(plan.max_message_entries, message);
    plan.total_work += message * domains[v];
    // The clock is read every step: on a graph turned dense one step takes up to milliseconds.
    if (plan.total_work > max_work || std::chrono::steady_clock::now() > deadline) {
      plan.total_work = std::numeric_limits<double>::infinity();
      return plan;
    }
    plan.width = std::max(plan.width, static_cast<std::int32_t>(graph.neighbours(v).size()));
    done[v] = 1;
    const std::vector<std::int32_t> touched = graph.neighbours(v);
    graph.eliminate(v);
    // Keys change for the neighbours and for their neighbours (fill counts among them change).
    std::vector<std::int32_t> update = touched;
    for (std::int32_t u : touched) {
      const auto& second = graph.neighbours(u);
      update.insert(update.end(), second.begin(), second.end());
    }
    std::sort(update.begin(), update.end());
    update.erase(std::unique(update.begin(), update.end()), update.end());
    for (std::int32_t u : update) {
      if (!eliminable[u] || done[u]) continue;
      queue.erase(current[u]);
      current[u] = graph.key(u, rule);
      queue.insert(current[u]);
    }
  }
  return plan;
}

}  // namespace

OrderPlan plan_order(const std::vector<std::int32_t>& domains,
                     const std::vector<std::vector<std::int32_t>>& scopes,
                     const std::vector<char>& eliminable, double max_work,
                     std::chrono::steady_clock::time_point deadline) {
  OrderPlan best;
  bool first = true;
  for (const Rule rule : kRules) {
    OrderPlan plan = greedy_order(domains, scopes, eliminable, rule,
                                  first ? max_work : std::min(max_work, best.total_work), deadline);
    if (first || std::tie(plan.total_work, plan.max_message_entries) <
                     std::tie(best.total_work, best.max_message_entries)) {
      best = std::move(plan);
      first = false;
    }
  }
  return best;
}

std::vector<std::vector<std::int32_t>> remaining_scopes(
    const std::vector<std::vector<std::int32_t>>& scopes, const std::vector<std::int32_t>& order,
    std::size_t variables) {
  constexpr std::int32_t kNever = std::numeric_limits<std::int32_t>::max();
  std::vector<std::int32_t> position(variables, kNever);
  for (std::size_t i = 0; i < order.size(); ++i) position[order[i]] = static_cast<std::int32_t>(i);
  std::vector<std::vector<std::vector<std::int32_t>>> buckets(order.size());
  std::vector<std::vector<std::int32_t>> out;
  auto place = [&](std::vector<std::int32_t> scope) {
    std::int32_t first = kNever;
    for (std::int32_t v : scope) first = std::min(first, position[v]);
    (first == kNever ? out : buckets[first]).push_back(std::move(scope));
  };
  for (const auto& s : scopes) place(s);
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (buckets[i].empty()) continue;
    std::vector<std::int32_t> merged;
    for (const auto& s : buckets[i]) {
      for (std::int32_t v : s) {
        if (v != order[i]) merged.push_back(v);
      }
    }
    std::sort(merged.begin(), merged.end());
    merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
    place(std::move(merged));
  }
  return out;
}

}  // namespace dtplan::solve::detail
