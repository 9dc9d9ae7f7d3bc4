#include "solve/simplify/work_graph.h"

#include <algorithm>

namespace dtplan::solve::detail {

WorkGraph::WorkGraph(const Problem& problem)
    : groups(problem.repeats), version(problem.nodes.size(), 0) {
  nodes.resize(problem.nodes.size());
  for (std::size_t i = 0; i < problem.nodes.size(); ++i) {
    WorkNode& n = nodes[i];
    n.name = problem.nodes[i].name;
    n.cost = problem.nodes[i].cost_us;
    n.labels.resize(n.cost.size());
    for (std::size_t l = 0; l < n.labels.size(); ++l) n.labels[l] = static_cast<LabelIndex>(l);
    n.bytes.resize(problem.memory.size());
  }
  for (std::size_t r = 0; r < problem.memory.size(); ++r) {
    const MemoryRow& row = problem.memory[r];
    rows.push_back({row.name, row.low_bytes, row.high_bytes, true});
    for (const MemoryTerm& t : row.terms) nodes[t.node].bytes[r] = t.bytes;
  }
  for (std::size_t g = 0; g < problem.repeats.size(); ++g) {
    const auto& blocks = problem.repeats[g].blocks;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      for (std::size_t p = 0; p < blocks[b].size(); ++p) {
        WorkNode& n = nodes[blocks[b][p]];
        n.group = static_cast<std::int32_t>(g);
        n.block = static_cast<std::int32_t>(b);
        n.position = static_cast<std::int32_t>(p);
      }
    }
  }
  for (const Edge& e : problem.edges) {
    const std::size_t before = edges.size();
    add_edge(e.from, e.to, e.cost_us);
    if (edges.size() == before) ++stats.parallel_edges_merged;
  }
}

bool WorkGraph::restrict(NodeIndex v, const std::vector<char>& keep) {
  WorkNode& n = nodes[v];
  auto compact = [&](auto& values) {
    std::size_t out = 0;
    for (std::size_t l = 0; l < keep.size(); ++l) {
      if (keep[l]) values[out++] = values[l];
    }
    values.resize(out);
  };
  for (std::int32_t id : n.edges) {
    WorkEdge& e = edges[id];
    const std::int32_t rows_n = nodes[e.from].size(), cols = nodes[e.to].size();
    const bool rows = e.from == v;
    std::vector<Restricted>* seen = nullptr;
    if (!e.cost.empty()) {
      seen = &restricted_[e.cost.data()];
      const auto hit = std::find_if(seen->begin(), seen->end(), [&](const Restricted& r) {
        return r.rows == rows && r.row_count == rows_n && r.keep == keep;
      });
      if (hit != seen->end()) {
        e.cost = hit->result;
        continue;
      }
    }
    std::vector<double> out;
    out.reserve(e.cost.size());
    for (std::int32_t i = 0; i < rows_n; ++i) {
      if (e.from == v && !keep[i]) continue;
      for (std::int32_t j = 0; j < cols; ++j) {
        if (e.to == v && !keep[j]) continue;
        out.push_back(e.cost[static_cast<std::size_t>(i) * cols + j]);
      }
    }
    Matrix result(std::move(out));
    if (seen != nullptr) seen->push_back({e.cost, rows, rows_n, keep, result});
    e.cost = std::move(result);
  }
  touch(v);
  for (std::int32_t id : n.edges) touch(other(edges[id], v));
  compact(n.labels);
  compact(n.cost);
  for (auto& b : n.bytes) {
    if (!b.empty()) compact(b);
  }
  return !n.labels.empty();
}

std::int32_t WorkGraph::find_edge(NodeIndex u, NodeIndex w) const {
  for (std::int32_t id : nodes[u].edges) {
    if (other(edges[id], u) == w) return id;
  }
  return -1;
}

void WorkGraph::add_edge(NodeIndex from, NodeIndex to, Matrix cost) {
  touch(from);
  touch(to);
  const std::int32_t existing = find_edge(from, to);
  if (existing < 0) {
    const auto id = static_cast<std::int32_t>(edges.size());
    edges.push_back({from, to, std::move(cost), true});
    nodes[from].edges.push_back(id);
    nodes[to].edges.push_back(id);
    return;
  }
  WorkEdge& e = edges[existing];
  std::vector<double>& sum = e.cost.edit();
  const std::int32_t cols = nodes[to].size();
  for (std::int32_t i = 0; i < nodes[from].size(); ++i) {
    for (std::int32_t j = 0; j < cols; ++j) {
      const double add = cost[static_cast<std::size_t>(i) * cols + j];
      if (e.from == from) {
        sum[static_cast<std::size_t>(i) * cols + j] += add;
      } else {
        sum[static_cast<std::size_t>(j) * nodes[from].size() + i] += add;
      }
    }
  }
}

void WorkGraph::kill_edge(std::int32_t id) {
  WorkEdge& e = edges[id];
  e.alive = false;
  for (NodeIndex v : {e.from, e.to}) {
    touch(v);
    auto& list = nodes[v].edges;
    list.erase(std::find(list.begin(), list.end(), id));
  }
}

void WorkGraph::kill_node(NodeIndex v) {
  while (!nodes[v].edges.empty()) kill_edge(nodes[v].edges.back());
  nodes[v].alive = false;
}

std::vector<NodeIndex> WorkGraph::neighbours(NodeIndex v) const {
  std::vector<NodeIndex> out;
  for (std::int32_t id : nodes[v].edges) out.push_back(other(edges[id], v));
  return out;
}

bool WorkGraph::has_memory(NodeIndex v) const {
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].alive && !nodes[v].bytes[r].empty()) return true;
  }
  return false;
}

std::vector<NodeIndex> WorkGraph::class_of(NodeIndex v) const {
  const WorkNode& n = nodes[v];
  if (n.group < 0) return {v};
  std::vector<NodeIndex> out;
  for (const auto& block : groups[n.group].blocks) out.push_back(block[n.position]);
  return out;
}

bool WorkGraph::same_as(NodeIndex v, NodeIndex rep) const {
  const WorkNode& a = nodes[v];
  const WorkNode& r = nodes[rep];
  if (!r.alive || a.group < 0 || a.labels != r.labels || a.cost != r.cost || a.bytes != r.bytes ||
      a.edges.size() != r.edges.size()) {
    return false;
  }
  for (std::int32_t id : a.edges) {
    const WorkEdge& e = edges[id];
    const WorkNode& w = nodes[other(e, v)];
    if (w.group != a.group || w.block != a.block) return false;
    const NodeIndex rw = groups[a.group].blocks[r.block][w.position];
    bool found = false;
    for (std::int32_t rid : r.edges) {
      const WorkEdge& f = edges[rid];
      if (other(f, rep) == rw && (f.from == rep) == (e.from == v) && f.cost == e.cost) found = true;
    }
    if (!found) return false;
  }
  return true;
}

}  // namespace dtplan::solve::detail
