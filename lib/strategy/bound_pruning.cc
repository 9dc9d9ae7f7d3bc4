#include "strategy/bound_pruning.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <unordered_map>

#include "core/hash.h"

namespace dtplan::strategy {

namespace {

using solve::NodeIndex;

constexpr double kInf = std::numeric_limits<double>::infinity();

// Union-find over the free nodes.
struct Components {
  std::vector<NodeIndex> parent;
  explicit Components(std::size_t n) : parent(n) {
    std::iota(parent.begin(), parent.end(), NodeIndex{0});
  }
  NodeIndex root(NodeIndex v) {
    while (parent[static_cast<std::size_t>(v)] != v) {
      const NodeIndex up = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(v)])];
      parent[static_cast<std::size_t>(v)] = up;
      v = up;
    }
    return v;
  }
  void unite(NodeIndex a, NodeIndex b) {
    a = root(a);
    b = root(b);
    if (a != b) parent[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
  }
};

// What bounding a component did: per member the strategies it kept and its plan's strategy,
// how many it dropped, and whether the bound was finite.
struct Outcome {
  std::vector<std::vector<std::int32_t>> kept;
  std::vector<std::int32_t> plan;
  std::int64_t dropped = 0;
  bool bounded = false;
};

// A component's signature (Pruner::for_signature) and what bounding it did.
struct Seen {
  std::vector<std::int64_t> signature;
  Outcome outcome;
};

// How a pass prices a node's edges from earlier members of its component.
enum class InEdges : std::uint8_t {
  kCheapestBound,  // PruneEdgeSource::cheapest: a lower bound, no pair priced
  kExact,          // the matrix's column minima over the producer's kept strategies
};

struct Pruner {
  std::span<const PruneNode> nodes;
  std::span<const PruneEdge> edges;
  PruneEdgeSource& source;
  InEdges in_edges;
  std::unordered_map<const void*, std::pair<EdgeMatrix, std::vector<double>>> minima{};
  std::vector<std::vector<std::int32_t>> lists{};    // per node: its allowed strategies
  std::vector<std::vector<double>> local{};          // per free node, per entry of its list
  std::vector<std::vector<std::size_t>> in_free{};   // per free node: edges from free producers
  std::vector<std::vector<std::size_t>> out_free{};  // per free node: edges to free consumers

  [[nodiscard]] bool fixed(NodeIndex v) const {
    return lists[static_cast<std::size_t>(v)].size() == 1;
  }

  // local(): the unaries, plus the edges to fixed nodes; false when an edge cannot be priced.
  bool add_local(std::vector<std::vector<char>>& allowed, Components& comps) {
    for (std::size_t v = 0; v < nodes.size(); ++v) {
      const auto count =
          std::count_if(allowed[v].begin(), allowed[v].end(), [](char a) { return a != 0; });
      if (count == 0) return false;
      lists[v].reserve(static_cast<std::size_t>(count));
      local[v].reserve(static_cast<std::size_t>(count));
      for (std::size_t s = 0; s < allowed[v].size(); ++s) {
        if (allowed[v][s] == 0) continue;
        lists[v].push_back(static_cast<std::int32_t>(s));
        local[v].push_back(nodes[v].unary[s]);
      }
    }
    in_free.resize(nodes.size());
    out_free.resize(nodes.size());
    for (std::size_t e = 0; e < edges.size(); ++e) {
      const NodeIndex u = edges[e].u, v = edges[e].v;
      const bool fu = fixed(u), fv = fixed(v);
      if (fu && fv) continue;
      if (!fu && !fv) {
        comps.unite(u, v);
        in_free[static_cast<std::size_t>(v)].push_back(e);
        out_free[static_cast<std::size_t>(u)].push_back(e);
        continue;
      }
      auto m =
          source.matrix(e, lists[static_cast<std::size_t>(u)], lists[static_cast<std::size_t>(v)]);
      if (!m.ok()) return false;
      std::vector<double>& to = local[static_cast<std::size_t>(fu ? v : u)];
      for (std::size_t i = 0; i < to.size(); ++i) to[i] += edges[e].runs * (**m)[i];
    }
    return true;
  }

  // The entries of v's list that are smallest in every memory term of v.
  [[nodiscard]] std::vector<std::size_t> memory_minimal(NodeIndex v) const {
    const auto& list = lists[static_cast<std::size_t>(v)];
    std::vector<std::size_t> out(list.size());
    std::iota(out.begin(), out.end(), std::size_t{0});
    for (std::span<const std::int64_t> term : nodes[static_cast<std::size_t>(v)].bytes) {
      std::int64_t low = std::numeric_limits<std::int64_t>::max();
      for (std::int32_t s : list) low = std::min(low, term[static_cast<std::size_t>(s)]);
      std::erase_if(out,
                    [&](std::size_t i) { return term[static_cast<std::size_t>(list[i])] != low; });
    }
    return out;
  }

  // UB_K of the header for the free nodes `members` (ascending), or +inf.
  double greedy_bound(const std::vector<NodeIndex>& members, std::vector<std::size_t>& choice) {
    double total = 0;
    for (NodeIndex v : members) {
      const std::vector<std::size_t> cand = memory_minimal(v);
      if (cand.empty()) return kInf;
      const auto add = cost_at(v, cand, choice);
      if (!add) return kInf;
      const auto best = std::min_element(add->begin(), add->end()) - add->begin();
      if (!std::isfinite((*add)[static_cast<std::size_t>(best)])) return kInf;
      choice[static_cast<std::size_t>(v)] = cand[static_cast<std::size_t>(best)];
      total += (*add)[static_cast<std::size_t>(best)];
    }
    return total;
  }

  // Per entry of `cand` (entries of v's list): v's local cost there plus its edges from earlier
  // members at their `choice`; nullopt where an edge cannot be priced.
  std::optional<std::vector<double>> cost_at(NodeIndex v, const std::vector<std::size_t>& cand,
                                             const std::vector<std::size_t>& choice) {
    std::vector<double> add;
    add.reserve(cand.size());
    for (std::size_t c : cand) add.push_back(local[static_cast<std::size_t>(v)][c]);
    const std::vector<std::int32_t> mine = strategies_of(v, cand);
    for (std::size_t e : in_free[static_cast<std::size_t>(v)]) {
      const NodeIndex u = edges[e].u;
      const std::int32_t from =
          lists[static_cast<std::size_t>(u)][choice[static_cast<std::size_t>(u)]];
      auto m = source.matrix(e, {from}, mine);
      if (!m.ok()) return std::nullopt;
      for (std::size_t c = 0; c < cand.size(); ++c) add[c] += edges[e].runs * (**m)[c];
    }
    return add;
  }

  // The exact cost of the plan `choice` of `members`, or +inf.
  double plan_cost(const std::vector<NodeIndex>& members, const std::vector<std::size_t>& choice) {
    double total = 0;
    for (NodeIndex v : members) {
      const auto add = cost_at(v, {choice[static_cast<std::size_t>(v)]}, choice);
      if (!add) return kInf;
      total += add->front();
    }
    return total;
  }

  // The strategies of entries `cand` of v's list.
  [[nodiscard]] std::vector<std::int32_t> strategies_of(
      NodeIndex v, const std::vector<std::size_t>& cand) const {
    std::vector<std::int32_t> out;
    out.reserve(cand.size());
    for (std::size_t c : cand) out.push_back(lists[static_cast<std::size_t>(v)][c]);
    return out;
  }

  // The exact cost of `plan` (a strategy per node) on `members`, its list entries in `choice`;
  // nullopt where a member has no strategy there or its strategy is no longer allowed.
  std::optional<double> carried_bound(const std::vector<NodeIndex>& members,
                                      const std::vector<std::int32_t>& plan,
                                      std::vector<std::size_t>& choice) {
    for (NodeIndex v : members) {
      const auto& list = lists[static_cast<std::size_t>(v)];
      const auto at = std::find(list.begin(), list.end(), plan[static_cast<std::size_t>(v)]);
      if (at == list.end()) return std::nullopt;
      choice[static_cast<std::size_t>(v)] = static_cast<std::size_t>(at - list.begin());
    }
    return plan_cost(members, choice);
  }

  // Whether edge e (between free nodes) carries its producer's plan values forward: each free
  // producer hands them to the consumer of its first edge to a free node.
  [[nodiscard]] bool absorbs(std::size_t e) const {
    return out_free[static_cast<std::size_t>(edges[e].u)].front() == e;
  }

  // A plan of `members` (ascending) over memory-minimal strategies, built by dynamic
  // programming: in node order, F(v, s) is v's local cost plus, per edge from an earlier member
  // u, the cheapest seeded cost into s (seeded_cheapest: a lower bound on each pair), seeded
  // with F(u, .) along the edge that absorbs u and at 0 along the others; then from the last
  // node back, each node takes its cheapest value unless a consumer that absorbed it already
  // chose for it. The plan's exact cost, or +inf. `choice` gets the plan.
  double dp_bound(const std::vector<NodeIndex>& members, std::vector<std::size_t>& choice) {
    std::unordered_map<NodeIndex, std::vector<std::size_t>> cand;
    std::unordered_map<NodeIndex, std::vector<double>> f;
    std::unordered_map<NodeIndex, std::vector<std::int32_t>> from;  // per absorbed producer
    for (NodeIndex v : members) {
      cand[v] = memory_minimal(v);
      if (cand[v].empty()) return kInf;
      std::vector<double>& fv = f[v];
      for (std::size_t c : cand[v]) fv.push_back(local[static_cast<std::size_t>(v)][c]);
      const std::vector<std::int32_t> vs = strategies_of(v, cand[v]);
      for (std::size_t e : in_free[static_cast<std::size_t>(v)]) {
        const NodeIndex u = edges[e].u;
        const double runs = edges[e].runs;
        const std::vector<double>& fu = f[u];
        const double low = *std::min_element(fu.begin(), fu.end());
        if (!std::isfinite(low)) return kInf;  // u has no finite value: no plan to follow
        std::vector<double> seeds(fu.size(), 0.0);
        if (absorbs(e) && runs > 0) {
          for (std::size_t j = 0; j < fu.size(); ++j) seeds[j] = (fu[j] - low) / runs;
        }
        auto into = source.seeded(e, strategies_of(u, cand[u]), seeds, vs);
        if (!into.ok()) return kInf;
        for (std::size_t c = 0; c < fv.size(); ++c) fv[c] += runs * (*into)->value[c];
        if (absorbs(e)) from[u] = (*into)->from;
      }
    }
    for (auto it = members.rbegin(); it != members.rend(); ++it) {
      const NodeIndex v = *it;
      std::size_t& pick = choice[static_cast<std::size_t>(v)];
      const auto& fv = f[v];
      const auto& out = out_free[static_cast<std::size_t>(v)];
      if (out.empty()) {
        pick = static_cast<std::size_t>(std::min_element(fv.begin(), fv.end()) - fv.begin());
      }
      if (!std::isfinite(fv[pick])) return kInf;
      for (std::size_t e : in_free[static_cast<std::size_t>(v)]) {
        if (!absorbs(e)) continue;
        const std::int32_t j = from[edges[e].u][pick];
        if (j < 0) return kInf;
        choice[static_cast<std::size_t>(edges[e].u)] = static_cast<std::size_t>(j);
      }
    }
    for (NodeIndex v : members) {
      std::size_t& pick = choice[static_cast<std::size_t>(v)];
      pick = cand[v][pick];
    }
    return plan_cost(members, choice);
  }

  // G(v, .) of the forest bound (header) per entry of v's list, for `members` (ascending); each
  // absorbing edge's term in its consumer's G goes to `into`. False where some G has no finite
  // entry (then no plan of the component is finite, and nothing is dropped).
  bool forest_values(const std::vector<NodeIndex>& members,
                     std::unordered_map<NodeIndex, std::vector<double>>& g,
                     std::unordered_map<std::size_t, std::vector<double>>& into) {
    for (NodeIndex v : members) {
      const auto& vs = lists[static_cast<std::size_t>(v)];
      std::vector<double>& gv = g[v];
      gv = local[static_cast<std::size_t>(v)];
      for (std::size_t e : in_free[static_cast<std::size_t>(v)]) {
        const NodeIndex u = edges[e].u;
        const auto& us = lists[static_cast<std::size_t>(u)];
        const double runs = edges[e].runs;
        std::vector<double> term(gv.size(), 0.0);
        if (absorbs(e)) {
          // min_p G(u, p) + runs cost(p, s) >= min G(u) + runs seeded(s), seeds (G(u, .) -
          // min)/runs.
          const std::vector<double>& gu = g[u];
          const double low = *std::min_element(gu.begin(), gu.end());
          if (!std::isfinite(low)) return false;
          std::fill(term.begin(), term.end(), low);
          if (runs > 0) {
            std::vector<double> seeds(gu.size());
            for (std::size_t j = 0; j < gu.size(); ++j) seeds[j] = (gu[j] - low) / runs;
            auto b = source.seeded(e, us, seeds, vs);
            if (b.ok()) {
              for (std::size_t c = 0; c < term.size(); ++c) term[c] += runs * (*b)->value[c];
            }
          }
        } else if (auto m = source.cheapest(e, us, vs); m.ok()) {
          for (std::size_t c = 0; c < term.size(); ++c) term[c] = runs * (**m)[c];
        }  // an edge that cannot be priced costs >= 0 here; export reports it
        for (std::size_t c = 0; c < gv.size(); ++c) gv[c] += term[c];
        if (absorbs(e)) into[e] = std::move(term);
      }
    }
    return true;
  }

  // The forest bound of the header over `members` (ascending) against `upper`: drops each
  // strategy p of v with G(v, p) + rest(v) > upper; returns how many.
  std::int64_t forest_prune(const std::vector<NodeIndex>& members, double upper,
                            std::vector<std::vector<char>>& allowed) {
    std::unordered_map<NodeIndex, std::vector<double>> g;
    std::unordered_map<std::size_t, std::vector<double>> into;
    if (!forest_values(members, g, into)) return 0;
    const auto min_of = [](const std::vector<double>& x) {
      return *std::min_element(x.begin(), x.end());
    };
    double lower = 0;  // the component's bound: its roots' cheapest G
    for (NodeIndex v : members) {
      if (out_free[static_cast<std::size_t>(v)].empty()) lower += min_of(g[v]);
    }
    if (!std::isfinite(lower)) return 0;
    // rest(v): at most what the rest of the component costs, v's subtree and its absorbing edge
    // left out. A root's is the other roots' cheapest G; a producer's is its absorber's rest
    // plus the absorber's cheapest G without the producer's term.
    std::unordered_map<NodeIndex, double> rest;
    std::int64_t dropped = 0;
    for (auto it = members.rbegin(); it != members.rend(); ++it) {
      const NodeIndex v = *it;
      if (out_free[static_cast<std::size_t>(v)].empty()) rest[v] = lower - min_of(g[v]);
      for (std::size_t e : in_free[static_cast<std::size_t>(v)]) {
        if (!absorbs(e)) continue;
        double without = kInf;
        for (std::size_t c = 0; c < g[v].size(); ++c) {
          if (std::isfinite(into[e][c])) without = std::min(without, g[v][c] - into[e][c]);
        }
        rest[edges[e].u] = without + rest[v];
      }
    }
    for (NodeIndex v : members) {
      std::vector<double> total = g[v];
      for (double& t : total) t += rest[v];
      dropped += drop_over(v, total, upper, allowed);
    }
    return dropped;
  }

  // Bounds the component `comp` (ascending): two plans of it, the cheaper one bounding it (the
  // second is the last pass's plan where there was one, since it survived that pass, else the
  // planned one), recorded in `plan`; then the forest bound and the walk drop what they can,
  // added to `dropped`. Whether it had a finite bound.
  bool bound(const std::vector<NodeIndex>& comp, std::vector<std::size_t>& greedy,
             std::vector<std::size_t>& other, std::vector<std::int32_t>& plan,
             std::vector<std::vector<char>>& allowed, std::int64_t& dropped) {
    double upper = greedy_bound(comp, greedy);
    auto second = carried_bound(comp, plan, other);
    if (!second) second = dp_bound(comp, other);
    const std::vector<std::size_t>& best = *second < upper ? other : greedy;
    upper = std::min(upper, *second);
    if (!std::isfinite(upper)) return false;
    for (NodeIndex v : comp) {
      plan[static_cast<std::size_t>(v)] =
          lists[static_cast<std::size_t>(v)][best[static_cast<std::size_t>(v)]];
    }
    dropped += forest_prune(comp, upper, allowed);
    double lower = 0;
    for (NodeIndex v : comp) {
      const auto& l = local[static_cast<std::size_t>(v)];
      lower += *std::min_element(l.begin(), l.end());
    }
    if (!std::isfinite(lower)) return false;
    dropped += prune(comp, upper, lower, allowed);
    return true;
  }

  // Calls f with everything bound() reads about `comp`, in order: per member its list, local
  // costs, carried plan and memory terms, and per edge in its class, producer's position, runs
  // and whether it absorbs. Components with equal sequences are bounded alike.
  template <class F>
  void for_signature(const std::vector<NodeIndex>& comp, const std::vector<std::int32_t>& plan,
                     F&& f) const {
    std::unordered_map<NodeIndex, std::int64_t> at;
    for (std::size_t i = 0; i < comp.size(); ++i) at[comp[i]] = static_cast<std::int64_t>(i);
    for (NodeIndex v : comp) {
      const auto vi = static_cast<std::size_t>(v);
      f(static_cast<std::int64_t>(lists[vi].size()));
      for (std::int32_t s : lists[vi]) f(s);
      for (double x : local[vi]) f(std::bit_cast<std::int64_t>(x));
      f(plan[vi]);
      f(static_cast<std::int64_t>(nodes[vi].bytes.size()));
      for (std::span<const std::int64_t> term : nodes[vi].bytes) {
        for (std::int32_t s : lists[vi]) f(term[static_cast<std::size_t>(s)]);
      }
      f(static_cast<std::int64_t>(in_free[vi].size()));
      for (std::size_t e : in_free[vi]) {
        f(source.edge_class(e));
        f(at.at(edges[e].u));
        f(std::bit_cast<std::int64_t>(edges[e].runs));
        f(absorbs(e) ? 1 : 0);
      }
    }
  }

  // The outcome bound() gave a component with `comp`'s signature, or nullptr; `signature` gets
  // comp's. `seen` holds the signatures bounded so far by their hash.
  Outcome* outcome_of(const std::vector<NodeIndex>& comp, const std::vector<std::int32_t>& plan,
                      std::unordered_map<std::uint64_t, std::vector<Seen>>& seen,
                      std::vector<std::int64_t>& signature, std::uint64_t& hash) const {
    signature.clear();
    for_signature(comp, plan, [&](std::int64_t x) { signature.push_back(x); });
    hash = core::hash_words(signature);
    for (Seen& other : seen[hash]) {
      if (other.signature == signature) return &other.outcome;
    }
    return nullptr;
  }

  // The lists of `comp`'s members.
  [[nodiscard]] std::vector<std::vector<std::int32_t>> lists_of(
      const std::vector<NodeIndex>& comp) const {
    std::vector<std::vector<std::int32_t>> out;
    out.reserve(comp.size());
    for (NodeIndex v : comp) out.push_back(lists[static_cast<std::size_t>(v)]);
    return out;
  }

  // The pass of the header over `members` (ascending): v's edges from earlier members join its
  // local cost at their cheapest kept producer strategy, raising `lower`, then v drops what
  // exceeds the bound. Returns how many strategies were dropped.
  std::int64_t prune(const std::vector<NodeIndex>& members, double upper, double lower,
                     std::vector<std::vector<char>>& allowed) {
    std::int64_t dropped = 0;
    for (NodeIndex v : members) {
      auto& l = local[static_cast<std::size_t>(v)];
      auto& list = lists[static_cast<std::size_t>(v)];
      const double before = *std::min_element(l.begin(), l.end());
      // Its edges only add, so what already exceeds the bound goes before they are priced.
      dropped += drop_above(v, before, upper - lower, allowed);
      for (std::size_t e : in_free[static_cast<std::size_t>(v)]) {
        const auto& from = lists[static_cast<std::size_t>(edges[e].u)];
        const auto cheapest = cheapest_into(e, from, list);
        if (!cheapest) continue;  // left out of the bound (an edge costs >= 0); export reports it
        for (std::size_t t = 0; t < list.size(); ++t) l[t] += edges[e].runs * (*cheapest)[t];
      }
      const double low = *std::min_element(l.begin(), l.end());
      lower += low - before;
      if (!std::isfinite(lower)) return dropped;  // no plan of the component is finite
      dropped += drop_above(v, low, upper - lower, allowed);
    }
    return dropped;
  }

  // Per entry of `to`, at most the cheapest cost per run of edge e from an entry of `from` (as
  // in_edges says), or nullopt where the edge cannot be priced.
  std::optional<std::vector<double>> cheapest_into(std::size_t e,
                                                   const std::vector<std::int32_t>& from,
                                                   const std::vector<std::int32_t>& to) {
    if (in_edges == InEdges::kCheapestBound) {
      auto m = source.cheapest(e, from, to);
      if (!m.ok()) return std::nullopt;
      return **m;
    }
    auto m = source.matrix(e, from, to);
    if (!m.ok()) return std::nullopt;
    // A source shares a matrix between the edges it is the same for (the identical layers):
    // its minima are computed once (the memo holds the matrix, so its address stays its own).
    auto& [held, out] = minima[m->get()];
    if (held == nullptr) {
      held = *m;
      out = column_minima(**m, to.size());
    }
    return out;
  }

  // Drops v's strategies whose local cost exceeds `low` by more than `slack` (plus a tolerance
  // for the different summation orders of the bound and the solver); returns how many.
  std::int64_t drop_above(NodeIndex v, double low, double slack,
                          std::vector<std::vector<char>>& allowed) {
    return drop_over(v, local[static_cast<std::size_t>(v)], low + slack, allowed);
  }

  // Drops the entries i of v's list with value[i] above `bound` plus the tolerance of
  // drop_above(); returns how many. `value` may be v's local costs themselves: entry i is read
  // before any entry at or after it is moved.
  std::int64_t drop_over(NodeIndex v, std::span<const double> value, double bound,
                         std::vector<std::vector<char>>& allowed) {
    auto& l = local[static_cast<std::size_t>(v)];
    auto& list = lists[static_cast<std::size_t>(v)];
    bound += 1e-9 * std::abs(bound) + 1e-6;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < l.size(); ++i) {
      if (value[i] > bound) {
        allowed[static_cast<std::size_t>(v)][static_cast<std::size_t>(list[i])] = 0;
        continue;
      }
      list[kept] = list[i];
      l[kept++] = l[i];
    }
    const auto dropped = static_cast<std::int64_t>(l.size() - kept);
    list.resize(kept);
    l.resize(kept);
    return dropped;
  }
};

}  // namespace

// One pass of the header over every component, its edges from earlier members priced as
// `in_edges` says. `plan` holds per node the strategy of the plan that bounded its component
// (-1: none), from the last pass and for the next.
static PruneStats prune_pass(std::span<const PruneNode> nodes, std::span<const PruneEdge> edges,
                             PruneEdgeSource& source, InEdges in_edges,
                             std::vector<std::int32_t>& plan,
                             std::vector<std::vector<char>>& allowed) {
  PruneStats stats;
  Pruner p{nodes, edges, source, in_edges};
  p.lists.resize(nodes.size());
  p.local.resize(nodes.size());
  Components comps(nodes.size());
  if (!p.add_local(allowed, comps)) return stats;
  std::vector<std::vector<NodeIndex>> members(nodes.size());
  std::vector<char> tied(nodes.size(), 0);
  for (std::size_t v = 0; v < nodes.size(); ++v) {
    if (p.fixed(static_cast<NodeIndex>(v))) continue;
    const NodeIndex r = comps.root(static_cast<NodeIndex>(v));
    members[static_cast<std::size_t>(r)].push_back(static_cast<NodeIndex>(v));
    if (nodes[v].tied) tied[static_cast<std::size_t>(r)] = 1;
  }
  std::vector<std::size_t> greedy(nodes.size(), 0);
  std::vector<std::size_t> other(nodes.size(), 0);
  // Identical components (those of identical layers) are bounded once: what bounding one reads
  // is its signature, and a component with a signature seen before takes that one's outcome.
  std::unordered_map<std::uint64_t, std::vector<Seen>> seen;
  std::vector<std::int64_t> signature;  // the current component's (its buffer reused)
  for (std::size_t r = 0; r < nodes.size(); ++r) {
    if (members[r].empty()) continue;
    ++stats.components;
    if (tied[r] != 0) continue;
    const auto& comp = members[r];
    std::uint64_t hash = 0;
    Outcome* known = p.outcome_of(comp, plan, seen, signature, hash);
    if (known == nullptr) {
      Seen& fresh = seen[hash].emplace_back();
      fresh.signature = signature;
      Outcome& out = fresh.outcome;
      out.bounded = p.bound(comp, greedy, other, plan, allowed, out.dropped);
      out.kept = p.lists_of(comp);
      for (NodeIndex v : comp) out.plan.push_back(plan[static_cast<std::size_t>(v)]);
      known = &out;
    } else {
      for (std::size_t i = 0; i < comp.size(); ++i) {
        const auto v = static_cast<std::size_t>(comp[i]);
        plan[v] = known->plan[i];
        // Both lists ascend: one merge clears what the known outcome did not keep.
        const std::vector<std::int32_t>& kept = known->kept[i];
        std::size_t k = 0;
        for (std::int32_t s : p.lists[v]) {
          while (k < kept.size() && kept[k] < s) ++k;
          if (k == kept.size() || kept[k] != s) allowed[v][static_cast<std::size_t>(s)] = 0;
        }
      }
    }
    const Outcome& out = *known;
    stats.bounded += out.bounded ? 1 : 0;
    stats.dropped += out.dropped;
  }
  return stats;
}

PruneStats prune_by_bound(std::span<const PruneNode> nodes, std::span<const PruneEdge> edges,
                          PruneEdgeSource& source, std::vector<std::vector<char>>& allowed) {
  // The cheap pass drops most of what the bound can; the exact one then prices only the pairs
  // between the strategies left, and drops more (its edges cost at least the bounds).
  std::vector<std::int32_t> plan(nodes.size(), -1);
  const PruneStats rough = prune_pass(nodes, edges, source, InEdges::kCheapestBound, plan, allowed);
  PruneStats stats = prune_pass(nodes, edges, source, InEdges::kExact, plan, allowed);
  stats.dropped += rough.dropped;
  return stats;
}

}  // namespace dtplan::strategy
