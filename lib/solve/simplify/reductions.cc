#include "solve/simplify/reductions.h"

#include <algorithm>
#include <map>
#include <string>

namespace dtplan::solve::detail {

namespace {

std::int32_t index_of(const std::vector<LabelIndex>& labels, LabelIndex original) {
  const auto it = std::lower_bound(labels.begin(), labels.end(), original);
  return it != labels.end() && *it == original ? static_cast<std::int32_t>(it - labels.begin())
                                               : -1;
}

// True when every block of f's repeat position has a follower at that position whose leader sits
// at g's position of the same block, with the same map.
bool mergeable(const WorkGraph& g, const Problem& p, const std::vector<std::int32_t>& follower_of,
               const Follower& f) {
  const WorkNode& fn = g.nodes[f.node];
  const WorkNode& ln = g.nodes[f.leader];
  if (fn.group < 0 && ln.group < 0) return true;
  if (fn.group < 0 || fn.group != ln.group || fn.block != ln.block) return false;
  for (const auto& block : g.groups[fn.group].blocks) {
    const std::int32_t k = follower_of[block[fn.position]];
    if (k < 0) return false;
    const Follower& other = p.followers[k];
    if (other.leader != block[ln.position] || other.label_map != f.label_map) return false;
  }
  return true;
}

core::Status merge(WorkGraph& g, const Follower& f) {
  WorkNode& fn = g.nodes[f.node];
  std::vector<char> keep(static_cast<std::size_t>(g.nodes[f.leader].size()));
  for (std::size_t j = 0; j < keep.size(); ++j) {
    const LabelIndex m = f.label_map[g.nodes[f.leader].labels[j]];
    keep[j] = static_cast<char>(m >= 0 && index_of(fn.labels, m) >= 0);
  }
  if (!g.restrict(f.leader, keep)) {
    return core::Error::unsupported("infeasible: node '" + g.nodes[f.leader].name +
                                    "' has no label its follower '" + fn.name + "' can follow");
  }
  WorkNode& ln = g.nodes[f.leader];
  std::vector<std::int32_t> at(
      static_cast<std::size_t>(ln.size()));  // follower label per leader label
  for (std::size_t j = 0; j < at.size(); ++j)
    at[j] = index_of(fn.labels, f.label_map[ln.labels[j]]);
  for (std::size_t j = 0; j < at.size(); ++j) ln.cost[j] += fn.cost[at[j]];
  g.touch(f.leader);
  for (std::size_t r = 0; r < fn.bytes.size(); ++r) {
    if (fn.bytes[r].empty()) continue;
    if (ln.bytes[r].empty()) ln.bytes[r].assign(at.size(), 0);
    for (std::size_t j = 0; j < at.size(); ++j) ln.bytes[r][j] += fn.bytes[r][at[j]];
  }
  const std::vector<std::int32_t> edges = fn.edges;
  for (std::int32_t id : edges) {
    const WorkEdge e = g.edges[id];
    const NodeIndex w = g.other(e, f.node);
    const auto lsize = static_cast<std::int32_t>(at.size());
    if (w == f.leader) {
      for (std::int32_t j = 0; j < lsize; ++j)
        g.nodes[f.leader].cost[j] += g.entry(e, f.node, at[j], j);
      continue;
    }
    const std::int32_t wsize = g.nodes[w].size();
    std::vector<double> m(static_cast<std::size_t>(lsize) * wsize);
    for (std::int32_t j = 0; j < lsize; ++j) {
      for (std::int32_t y = 0; y < wsize; ++y) {
        const double c = g.entry(e, f.node, at[j], y);
        if (e.from == f.node) {
          m[static_cast<std::size_t>(j) * wsize + y] = c;
        } else {
          m[static_cast<std::size_t>(y) * lsize + j] = c;
        }
      }
    }
    if (e.from == f.node) {
      g.add_edge(f.leader, w, std::move(m));
    } else {
      g.add_edge(w, f.leader, std::move(m));
    }
  }
  g.kill_node(f.node);
  g.steps.push_back({LiftStep::Kind::kFollower, f.node, f.leader, -1, {}, {}, f.label_map});
  return {};
}

void as_edge(WorkGraph& g, const Follower& f) {
  const WorkNode& ln = g.nodes[f.leader];
  const WorkNode& fn = g.nodes[f.node];
  std::vector<double> m(static_cast<std::size_t>(ln.size()) * fn.size(), kForbidden);
  for (std::int32_t j = 0; j < ln.size(); ++j) {
    const std::int32_t i = index_of(fn.labels, f.label_map[ln.labels[j]]);
    if (i >= 0) m[static_cast<std::size_t>(j) * fn.size() + i] = 0;
  }
  g.add_edge(f.leader, f.node, std::move(m));
}

// Edge e's matrix with v's labels as rows, contiguous (transposed where v is the consumer).
std::vector<double> rows_of(const WorkGraph& g, const WorkEdge& e, NodeIndex v) {
  if (e.from == v) return e.cost.values();
  const auto rows = static_cast<std::size_t>(g.nodes[v].size());
  const auto cols = static_cast<std::size_t>(g.nodes[e.from].size());
  std::vector<double> t(rows * cols);
  for (std::size_t o = 0; o < cols; ++o) {
    for (std::size_t x = 0; x < rows; ++x) t[x * cols + o] = e.cost[o * rows + x];
  }
  return t;
}

void fold_leaf(WorkGraph& g, NodeIndex v, NodeIndex u) {
  const WorkEdge& e = g.edges[g.nodes[v].edges[0]];
  const WorkNode& n = g.nodes[v];
  LiftStep step{LiftStep::Kind::kFold, v, u, -1, g.nodes[u].labels, {}, {}};
  for (std::int32_t y = 0; y < g.nodes[u].size(); ++y) {
    double best = kForbidden;
    std::int32_t arg = 0;
    for (std::int32_t x = 0; x < n.size(); ++x) {
      const double c = n.cost[x] + g.entry(e, v, x, y);
      if (c < best) {
        best = c;
        arg = x;
      }
    }
    g.nodes[u].cost[y] += best;
    step.table.push_back(n.labels[arg]);
  }
  g.touch(u);
  g.kill_node(v);
  g.steps.push_back(std::move(step));
}

void fold_series(WorkGraph& g, NodeIndex v, NodeIndex u, NodeIndex w) {
  const WorkNode& n = g.nodes[v];
  const WorkEdge* eu = nullptr;
  const WorkEdge* ew = nullptr;
  for (std::int32_t id : n.edges) (g.other(g.edges[id], v) == u ? eu : ew) = &g.edges[id];
  const std::int32_t su = g.nodes[u].size(), sw = g.nodes[w].size();
  std::vector<double> m(static_cast<std::size_t>(su) * sw, kForbidden);
  LiftStep step{LiftStep::Kind::kFold,
                v,
                u,
                w,
                g.nodes[u].labels,
                g.nodes[w].labels,
                std::vector<LabelIndex>(m.size(), n.labels[0])};
  const std::vector<double> to_u = rows_of(g, *eu, v);
  const std::vector<double> to_w = rows_of(g, *ew, v);
  // x outermost: each (y, z) still sees x ascending, so the lowest x attaining the minimum wins.
  for (std::int32_t x = 0; x < n.size(); ++x) {
    const double* wx = &to_w[static_cast<std::size_t>(x) * sw];
    for (std::int32_t y = 0; y < su; ++y) {
      const double a = to_u[static_cast<std::size_t>(x) * su + y] + n.cost[x];
      if (a == kForbidden) continue;
      double* my = &m[static_cast<std::size_t>(y) * sw];
      LabelIndex* ty = &step.table[static_cast<std::size_t>(y) * sw];
      for (std::int32_t z = 0; z < sw; ++z) {
        const double c = a + wx[z];
        if (c < my[z]) {
          my[z] = c;
          ty[z] = n.labels[x];
        }
      }
    }
  }
  g.kill_node(v);
  g.add_edge(u, w, std::move(m));
  g.steps.push_back(std::move(step));
}

}  // namespace

core::Status merge_followers(WorkGraph& g, const Problem& problem) {
  std::vector<std::int32_t> follower_of(g.nodes.size(), -1);
  for (std::size_t k = 0; k < problem.followers.size(); ++k) {
    follower_of[problem.followers[k].node] = static_cast<std::int32_t>(k);
  }
  auto depth = [&](NodeIndex v) {  // validate() rules out cycles
    std::int32_t d = 0;
    for (std::int32_t k = follower_of[v]; k >= 0; k = follower_of[problem.followers[k].leader]) ++d;
    return d;
  };
  std::vector<std::int32_t> order(problem.followers.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = static_cast<std::int32_t>(k);
  std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
    return depth(problem.followers[a].node) > depth(problem.followers[b].node);
  });
  for (std::int32_t k : order) {
    const Follower& f = problem.followers[k];
    if (mergeable(g, problem, follower_of, f)) {
      DTPLAN_CHECK(merge(g, f));
      ++g.stats.followers_merged;
    } else {
      as_edge(g, f);
      ++g.stats.followers_as_edges;
    }
  }
  return {};
}

bool fold_chains(WorkGraph& g, double max_table) {
  bool folded = false;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const auto v = static_cast<NodeIndex>(i);
    const WorkNode& n = g.nodes[v];
    if (!n.alive || n.group >= 0 || g.has_memory(v)) continue;
    const std::vector<NodeIndex> nb = g.neighbours(v);
    if (nb.size() == 1) {
      fold_leaf(g, v, nb[0]);
    } else if (nb.size() == 2 &&
               static_cast<double>(g.nodes[nb[0]].size()) * g.nodes[nb[1]].size() <= max_table &&
               static_cast<double>(g.nodes[nb[0]].size()) * g.nodes[nb[1]].size() * n.size() <=
                   64 * max_table) {
      fold_series(g, v, nb[0], nb[1]);
    } else {
      continue;
    }
    ++g.stats.nodes_folded;
    folded = true;
  }
  return folded;
}

Simplified finish(WorkGraph&& g) {
  Simplified out;
  out.stats = g.stats;
  out.remap.original_nodes = static_cast<std::int32_t>(g.nodes.size());
  out.remap.steps = std::move(g.steps);
  std::vector<NodeIndex> reduced(g.nodes.size(), -1);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    WorkNode& n = g.nodes[i];
    if (!n.alive) continue;
    reduced[i] = static_cast<NodeIndex>(out.problem.nodes.size());
    out.problem.nodes.push_back({n.name, std::move(n.cost)});
    out.remap.original_node.push_back(static_cast<NodeIndex>(i));
    out.remap.original_labels.push_back(std::move(n.labels));
  }
  std::map<NodeIndex, std::int32_t> slots;
  for (WorkEdge& e : g.edges) {
    if (!e.alive) continue;
    const NodeIndex to = reduced[e.to];
    out.problem.edges.push_back({reduced[e.from], to, slots[to]++, std::move(e.cost)});
  }
  for (std::size_t r = 0; r < g.rows.size(); ++r) {
    if (!g.rows[r].alive) continue;
    MemoryRow row{g.rows[r].name, {}, g.rows[r].low, g.rows[r].high};
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      if (g.nodes[i].alive && !g.nodes[i].bytes[r].empty()) {
        row.terms.push_back({reduced[i], std::move(g.nodes[i].bytes[r])});
      }
    }
    out.problem.memory.push_back(std::move(row));
  }
  for (const RepeatGroup& group : g.groups) {
    RepeatGroup renamed;
    for (const auto& block : group.blocks) {
      renamed.blocks.emplace_back();
      for (NodeIndex v : block) {
        if (reduced[v] >= 0) renamed.blocks.back().push_back(reduced[v]);
      }
    }
    const bool same_size =
        std::all_of(renamed.blocks.begin(), renamed.blocks.end(),
                    [&](const auto& b) { return b.size() == renamed.blocks[0].size(); });
    if (renamed.blocks.size() >= 2 && !renamed.blocks[0].empty() && same_size) {
      out.problem.repeats.push_back(std::move(renamed));
    }
  }
  return out;
}

}  // namespace dtplan::solve::detail
