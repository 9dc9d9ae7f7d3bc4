#include "solve/simplify.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>

#include "solve/simplify/reductions.h"
#include "solve/simplify/work_graph.h"

namespace dtplan::solve {

namespace {

using core::Error;
using detail::WorkEdge;
using detail::WorkGraph;
using detail::WorkNode;

constexpr double kMaxFoldTable = 1 << 20;           // largest lift table a series fold may create
constexpr std::int32_t kMaxDominanceLabels = 2048;  // dominance is quadratic in the labels

enum class Removal : std::uint8_t { kOptional, kMandatory };

Error no_label_left(const WorkGraph& g, NodeIndex v, const std::string& why) {
  return Error::unsupported("infeasible: node '" + g.nodes[v].name + "' has no label left (" + why +
                            ")");
}

// Removes the requested labels (remove[v] empty = none). In repeat blocks only labels requested
// in every block of the position go; mandatory requests elsewhere become +inf costs.
core::Result<std::int64_t> apply(WorkGraph& g, std::vector<std::vector<char>>& remove, Removal kind,
                                 const std::string& why) {
  std::int64_t count = 0;
  std::vector<char> done(g.nodes.size(), 0);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const auto v = static_cast<NodeIndex>(i);
    if (done[v] || !g.nodes[v].alive) continue;
    const std::vector<NodeIndex> members = g.class_of(v);
    std::vector<char> common(static_cast<std::size_t>(g.nodes[v].size()), 1);
    bool any = false;
    for (NodeIndex m : members) {
      done[m] = 1;
      if (remove[m].empty()) {
        std::fill(common.begin(), common.end(), 0);
      } else {
        any = true;
        for (std::size_t l = 0; l < common.size(); ++l)
          common[l] = static_cast<char>(common[l] && remove[m][l]);
      }
    }
    if (!any) continue;
    for (NodeIndex m : members) {
      if (kind == Removal::kMandatory && !remove[m].empty()) {
        for (std::size_t l = 0; l < common.size(); ++l) {
          if (remove[m][l] && !common[l] && g.nodes[m].cost[l] != kForbidden) {
            g.nodes[m].cost[l] = kForbidden;
            g.touch(m);
            ++count;
          }
        }
      }
      std::vector<char> keep(common.size());
      bool drop = false;
      for (std::size_t l = 0; l < common.size(); ++l) {
        keep[l] = static_cast<char>(!common[l]);
        drop = drop || common[l];
      }
      if (!drop) continue;
      count += static_cast<std::int64_t>(std::count(common.begin(), common.end(), 1));
      if (!g.restrict(m, keep)) return no_label_left(g, m, why);
    }
  }
  for (auto& r : remove) r.clear();
  return count;
}

core::Status apply_pins(WorkGraph& g, const Problem& p) {
  std::vector<std::vector<char>> remove(g.nodes.size());
  for (const Pin& pin : p.pins) {
    auto& r = remove[pin.node];
    if (r.empty()) r.assign(static_cast<std::size_t>(g.nodes[pin.node].size()), 0);
    std::vector<char> allowed(r.size(), 0);
    for (LabelIndex l : pin.labels) allowed[l] = 1;
    for (std::size_t l = 0; l < r.size(); ++l) r[l] = static_cast<char>(r[l] || !allowed[l]);
  }
  DTPLAN_TRY(g.stats.labels_pinned, apply(g, remove, Removal::kMandatory, "pins"));
  return {};
}

// The nodes a pass must (re)examine: those whose class (repeat position, or the node alone) has a
// member that changed since the pass last looked. Records what it looked at in `seen`.
std::vector<NodeIndex> changed_nodes(const WorkGraph& g, std::vector<std::uint64_t>& seen) {
  std::vector<NodeIndex> out;
  std::vector<char> done(g.nodes.size(), 0);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const auto v = static_cast<NodeIndex>(i);
    if (done[v] || !g.nodes[v].alive) continue;
    const std::vector<NodeIndex> members = g.class_of(v);
    bool dirty = false;
    for (NodeIndex m : members) dirty = dirty || seen[m] != g.version[m];
    for (NodeIndex m : members) {
      done[m] = 1;
      if (dirty && g.nodes[m].alive) out.push_back(m);
    }
  }
  std::sort(out.begin(), out.end());
  for (NodeIndex v : out) seen[v] = g.version[v];
  return out;
}

// What a node's local reductions (arc consistency, dominance) depend on: its unary costs, bytes
// and incident matrices. Nodes with the same ones (matrices shared, at the same end: a model's
// layers) share the answer, which is worked out for the first of them only.
class AlikeNodes {
 public:
  // A node seen before with the same costs, bytes and matrices as v, or -1 (v is then recorded).
  NodeIndex find_or_add(const WorkGraph& g, NodeIndex v) {
    const WorkNode& n = g.nodes[v];
    std::vector<std::pair<const double*, bool>> matrices;
    for (std::int32_t id : n.edges) {
      matrices.emplace_back(g.edges[id].cost.data(), g.edges[id].from == v);
    }
    std::sort(matrices.begin(), matrices.end());
    std::vector<NodeIndex>& alike = seen_[matrices];
    const auto same = std::find_if(alike.begin(), alike.end(), [&](NodeIndex u) {
      return g.nodes[u].cost == n.cost && g.nodes[u].bytes == n.bytes;
    });
    if (same != alike.end()) return *same;
    alike.push_back(v);
    return -1;
  }

 private:
  std::map<std::vector<std::pair<const double*, bool>>, std::vector<NodeIndex>> seen_;
};

// Arc consistency: +inf unary labels and labels with an all-+inf row on some edge.
core::Result<bool> arc_consistency(WorkGraph& g, std::vector<std::uint64_t>& seen) {
  std::vector<std::vector<char>> remove(g.nodes.size());
  AlikeNodes decided;
  bool any = false;
  for (NodeIndex v : changed_nodes(g, seen)) {
    if (const NodeIndex u = decided.find_or_add(g, v); u >= 0) {
      remove[v] = remove[u];
      continue;
    }
    const WorkNode& n = g.nodes[v];
    std::vector<char> r(static_cast<std::size_t>(n.size()), 0);
    bool some = false;
    for (std::int32_t l = 0; l < n.size(); ++l) {
      bool dead = n.cost[l] == kForbidden;
      for (std::size_t k = 0; k < n.edges.size() && !dead; ++k) {
        const WorkEdge& e = g.edges[n.edges[k]];
        const std::int32_t other = g.nodes[g.other(e, v)].size();
        dead = true;
        for (std::int32_t o = 0; o < other && dead; ++o) dead = g.entry(e, v, l, o) == kForbidden;
      }
      r[l] = static_cast<char>(dead);
      some = some || dead;
    }
    if (some) remove[v] = std::move(r);
    any = any || some;
  }
  if (!any) return false;
  DTPLAN_TRY(std::int64_t n, apply(g, remove, Removal::kOptional,
                                   "every label is forbidden or "
                                   "has only forbidden pairs"));
  g.stats.labels_inconsistent += n;
  return n > 0;
}

struct RowRange {
  std::int64_t min = 0;
  std::int64_t max = 0;
};

RowRange row_range(const WorkGraph& g, std::size_t r) {
  RowRange range;
  for (const WorkNode& n : g.nodes) {
    if (!n.alive || n.bytes[r].empty()) continue;
    range.min += *std::min_element(n.bytes[r].begin(), n.bytes[r].end());
    range.max += *std::max_element(n.bytes[r].begin(), n.bytes[r].end());
  }
  return range;
}

// Drops rows that cannot bind, removes labels that cannot fit, reports unreachable rows.
core::Result<bool> tighten_memory(WorkGraph& g) {
  std::vector<std::vector<char>> remove(g.nodes.size());
  bool any = false;
  for (std::size_t r = 0; r < g.rows.size(); ++r) {
    auto& row = g.rows[r];
    if (!row.alive) continue;
    const RowRange range = row_range(g, r);
    const std::string where = " (memory row '" + row.name + "', bytes)";
    if (range.min > row.high) {
      return Error::unsupported("infeasible: memory budget " + std::to_string(row.high) +
                                " below minimum " + std::to_string(range.min) + where);
    }
    if (range.max < row.low) {
      return Error::unsupported("infeasible: memory floor " + std::to_string(row.low) +
                                " above maximum " + std::to_string(range.max) + where);
    }
    if (range.max <= row.high && range.min >= row.low) {
      row.alive = false;
      ++g.stats.memory_rows_dropped;
      for (WorkNode& n : g.nodes) n.bytes[r].clear();
      continue;
    }
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      const WorkNode& n = g.nodes[i];
      if (!n.alive || n.bytes[r].empty()) continue;
      const std::int64_t lo = *std::min_element(n.bytes[r].begin(), n.bytes[r].end());
      const std::int64_t hi = *std::max_element(n.bytes[r].begin(), n.bytes[r].end());
      for (std::int32_t l = 0; l < n.size(); ++l) {
        const std::int64_t b = n.bytes[r][l];
        if (b - lo > row.high - range.min || b - hi < row.low - range.max) {
          if (remove[i].empty()) remove[i].assign(static_cast<std::size_t>(n.size()), 0);
          remove[i][l] = 1;
          any = true;
        }
      }
    }
  }
  if (!any) return false;
  DTPLAN_TRY(std::int64_t n, apply(g, remove, Removal::kOptional, "memory rows"));
  g.stats.labels_memory += n;
  return n > 0;
}

// Node v's labels as rows of everything dominance compares besides unary costs and bytes: per
// label, its entries of every incident edge against every label of the other end, in edge order,
// contiguous (a `to` end reads its matrix by column once here instead of per pair), and each
// row's sum. Entry-wise b <= a implies sum(b) <= sum(a) (floating-point addition in the same order
// is monotone, +inf included), so the sums reject most pairs before their rows are read.
struct LabelRows {
  std::size_t width = 0;
  std::vector<double> entries;  // label-major: [label * width + k]
  std::vector<double> sums;

  LabelRows(const WorkGraph& g, NodeIndex v) {
    const WorkNode& n = g.nodes[v];
    for (std::int32_t id : n.edges) {
      width += static_cast<std::size_t>(g.nodes[g.other(g.edges[id], v)].size());
    }
    const auto labels = static_cast<std::size_t>(n.size());
    entries.resize(labels * width);
    std::size_t offset = 0;
    for (std::int32_t id : n.edges) {
      // Read each matrix in its own order: by rows at the `from` end, by columns at the `to` end.
      const WorkEdge& e = g.edges[id];
      const auto other = static_cast<std::size_t>(g.nodes[g.other(e, v)].size());
      const double* m = e.cost.data();
      if (e.from == v) {
        for (std::size_t l = 0; l < labels; ++l) {
          std::copy_n(m + l * other, other, entries.data() + l * width + offset);
        }
      } else {
        for (std::size_t o = 0; o < other; ++o) {
          for (std::size_t l = 0; l < labels; ++l)
            entries[l * width + offset + o] = m[o * labels + l];
        }
      }
      offset += other;
    }
    sums.assign(labels, 0.0);
    for (std::size_t l = 0; l < labels; ++l) {
      for (std::size_t k = 0; k < width; ++k) sums[l] += entries[l * width + k];
    }
  }
};

// Label b dominates label a of node v (see simplify.h); identical labels: the lower index wins.
bool dominates(const WorkNode& n, const LabelRows& rows, const std::vector<int>& direction,
               std::int32_t b, std::int32_t a) {
  if (!(n.cost[b] <= n.cost[a])) return false;
  if (!(rows.sums[static_cast<std::size_t>(b)] <= rows.sums[static_cast<std::size_t>(a)])) {
    return false;
  }
  bool strict = n.cost[b] < n.cost[a];
  for (std::size_t r = 0; r < direction.size(); ++r) {
    if (direction[r] < 0 || n.bytes[r].empty()) continue;
    const std::int64_t xb = n.bytes[r][b], xa = n.bytes[r][a];
    if (direction[r] == 0 && xb > xa) return false;  // fewer bytes never worse
    if (direction[r] == 1 && xb < xa) return false;  // more bytes never worse
    if (direction[r] == 2 && xb != xa) return false;
    strict = strict || xb != xa;
  }
  const double* rb = rows.entries.data() + static_cast<std::size_t>(b) * rows.width;
  const double* ra = rows.entries.data() + static_cast<std::size_t>(a) * rows.width;
  for (std::size_t k = 0; k < rows.width; ++k) {
    if (!(rb[k] <= ra[k])) return false;
  }
  if (strict || b < a) return true;
  return !std::equal(rb, rb + rows.width, ra);
}

std::vector<char> dominated_labels(const WorkGraph& g, NodeIndex v,
                                   const std::vector<int>& direction) {
  const WorkNode& n = g.nodes[v];
  const LabelRows rows(g, v);
  std::vector<char> gone(static_cast<std::size_t>(n.size()), 0);
  for (std::int32_t a = 0; a < n.size(); ++a) {
    for (std::int32_t b = 0; b < n.size() && !gone[a]; ++b) {
      if (b != a && !gone[b] && dominates(n, rows, direction, b, a)) gone[a] = 1;
    }
  }
  return gone;
}

core::Result<bool> remove_dominated(WorkGraph& g, std::vector<std::uint64_t>& seen) {
  // Row directions: -1 dead, 0 only high binds, 1 only low binds, 2 both.
  std::vector<int> direction(g.rows.size(), -1);
  for (std::size_t r = 0; r < g.rows.size(); ++r) {
    if (!g.rows[r].alive) continue;
    const RowRange range = row_range(g, r);
    const bool high = range.max > g.rows[r].high, low = range.min < g.rows[r].low;
    direction[r] = high && low ? 2 : low ? 1 : 0;
  }
  std::vector<std::vector<char>> remove(g.nodes.size());
  std::vector<NodeIndex> copies;  // nodes identical to their block-0 representative
  AlikeNodes decided;
  const std::vector<NodeIndex> todo = changed_nodes(g, seen);
  for (NodeIndex v : todo) {
    const WorkNode& n = g.nodes[v];
    if (n.size() < 2 || n.size() > kMaxDominanceLabels) continue;
    if (n.block > 0 && g.same_as(v, g.class_of(v)[0])) {
      copies.push_back(v);
      continue;
    }
    if (const NodeIndex u = decided.find_or_add(g, v); u >= 0) {
      remove[v] = remove[u];
      continue;
    }
    remove[v] = dominated_labels(g, v, direction);
  }
  for (NodeIndex v : copies) {
    const NodeIndex rep = g.class_of(v)[0];
    remove[v] = remove[rep].empty() ? dominated_labels(g, v, direction) : remove[rep];
  }
  bool any = false;
  for (auto& r : remove) {
    if (std::find(r.begin(), r.end(), 1) == r.end()) r.clear();
    any = any || !r.empty();
  }
  if (!any) return false;
  DTPLAN_TRY(std::int64_t n, apply(g, remove, Removal::kOptional, "dominance"));
  g.stats.labels_dominated += n;
  return n > 0;
}

}  // namespace

core::Result<Simplified> simplify(const Problem& problem,
                                  std::chrono::steady_clock::time_point deadline) {
  DTPLAN_CHECK(validate(problem));
  WorkGraph g(problem);
  DTPLAN_CHECK(apply_pins(g, problem));
  DTPLAN_CHECK(detail::merge_followers(g, problem));
  std::vector<std::uint64_t> ac_seen(g.nodes.size(), ~std::uint64_t{0});
  std::vector<std::uint64_t> dom_seen = ac_seen;
  for (bool changed = true; changed && std::chrono::steady_clock::now() <= deadline;) {
    g.forget_restricted();
    DTPLAN_TRY(const bool ac, arc_consistency(g, ac_seen));
    DTPLAN_TRY(const bool mem, tighten_memory(g));
    DTPLAN_TRY(const bool dom, remove_dominated(g, dom_seen));
    const bool folded = detail::fold_chains(g, kMaxFoldTable);
    changed = ac || mem || dom || folded;
  }
  g.forget_restricted();
  return detail::finish(std::move(g));
}

core::Result<std::vector<LabelIndex>> lift(const Remap& remap,
                                           std::span<const LabelIndex> reduced) {
  if (reduced.size() != remap.original_node.size()) {
    return Error::bad_input("lift: " + std::to_string(reduced.size()) + " labels for " +
                            std::to_string(remap.original_node.size()) + " reduced nodes");
  }
  std::vector<LabelIndex> out(static_cast<std::size_t>(remap.original_nodes), -1);
  for (std::size_t r = 0; r < reduced.size(); ++r) {
    const auto& labels = remap.original_labels[r];
    if (reduced[r] < 0 || static_cast<std::size_t>(reduced[r]) >= labels.size()) {
      return Error::bad_input("lift: label " + std::to_string(reduced[r]) + " of reduced node " +
                              std::to_string(r) + " is out of range");
    }
    out[remap.original_node[r]] = labels[reduced[r]];
  }
  auto position = [](const std::vector<LabelIndex>& domain, LabelIndex label) {
    const auto it = std::lower_bound(domain.begin(), domain.end(), label);
    return it != domain.end() && *it == label ? static_cast<std::size_t>(it - domain.begin())
                                              : domain.size();
  };
  for (std::size_t k = remap.steps.size(); k-- > 0;) {
    const LiftStep& step = remap.steps[k];
    const LabelIndex la = out[step.a];
    if (step.kind == LiftStep::Kind::kFollower) {
      out[step.node] = step.table[la];
      continue;
    }
    const std::size_t ia = position(step.domain_a, la);
    const std::size_t ib = step.b < 0 ? 0 : position(step.domain_b, out[step.b]);
    if (ia == step.domain_a.size() || (step.b >= 0 && ib == step.domain_b.size())) {
      return Error::internal("lift: a neighbour's label left its domain");
    }
    out[step.node] = step.table[ia * std::max<std::size_t>(1, step.domain_b.size()) + ib];
  }
  return out;
}

}  // namespace dtplan::solve
