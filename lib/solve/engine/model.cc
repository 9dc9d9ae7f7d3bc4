#include "solve/engine/model.h"

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>

namespace dtplan::solve::detail {
namespace {

// The factor of one node's unary (frontier when the node has memory terms in the rows).
// `bytes[r]` holds the node's bytes per label in row r, or is empty when it has no term there.
Factor unary_factor(NodeIndex node, const std::vector<double>& cost_us,
                    const std::vector<std::vector<std::int64_t>>& bytes, std::size_t rows) {
  auto t = std::make_shared<Table>();
  const auto labels = static_cast<std::int32_t>(cost_us.size());
  t->dims = {labels};
  t->entries = labels;
  const bool has_memory =
      std::any_of(bytes.begin(), bytes.end(), [](const auto& b) { return !b.empty(); });
  if (!has_memory) {
    t->cost = cost_us;
    return {std::move(t), {node}};
  }
  t->frontier = true;
  t->absorbed_min.assign(rows, 0);
  t->absorbed_max.assign(rows, 0);
  for (std::size_t r = 0; r < rows; ++r) {
    if (bytes[r].empty()) continue;
    t->absorbed_min[r] = *std::min_element(bytes[r].begin(), bytes[r].end());
    t->absorbed_max[r] = *std::max_element(bytes[r].begin(), bytes[r].end());
  }
  t->begin.push_back(0);
  for (std::int32_t l = 0; l < labels; ++l) {
    if (cost_us[l] != kForbidden) {
      t->point_cost.push_back(cost_us[l]);
      for (std::size_t r = 0; r < rows; ++r) {
        t->point_mem.push_back(bytes[r].empty() ? 0 : bytes[r][l]);
      }
    }
    t->begin.push_back(static_cast<std::uint32_t>(t->point_cost.size()));
  }
  return {std::move(t), {node}};
}

}  // namespace

MemoryModel memory_model(const Problem& problem) {
  MemoryModel m;
  for (const MemoryRow& row : problem.memory) {
    std::int64_t lo = 0, hi = 0;
    for (const MemoryTerm& t : row.terms) {
      lo += *std::min_element(t.bytes.begin(), t.bytes.end());
      hi += *std::max_element(t.bytes.begin(), t.bytes.end());
    }
    const bool high_binds = hi > row.high_bytes;
    const bool low_binds = lo < row.low_bytes;
    m.low.push_back(row.low_bytes);
    m.high.push_back(row.high_bytes);
    m.total_min.push_back(lo);
    m.total_max.push_back(hi);
    m.direction.push_back(high_binds && low_binds ? RowDirection::kExact
                          : low_binds             ? RowDirection::kHigherBetter
                                                  : RowDirection::kLowerBetter);
  }
  return m;
}

EngineProblem build_engine_problem(Problem problem) {
  EngineProblem ep;
  ep.memory = memory_model(problem);
  const std::size_t rows = problem.memory.size();
  std::vector<std::vector<std::vector<std::int64_t>>> bytes(
      problem.nodes.size(), std::vector<std::vector<std::int64_t>>(rows));
  for (std::size_t r = 0; r < rows; ++r) {
    for (const MemoryTerm& t : problem.memory[r].terms) bytes[t.node][r] = t.bytes;
  }
  std::vector<std::vector<double>> unary;
  for (Node& n : problem.nodes) {
    ep.domains.push_back(static_cast<std::int32_t>(n.cost_us.size()));
    unary.push_back(std::move(n.cost_us));
  }
  for (const Pin& pin : problem.pins) {
    std::vector<char> mask(unary[pin.node].size(), 0);
    for (LabelIndex l : pin.labels) mask[l] = 1;
    for (std::size_t l = 0; l < mask.size(); ++l) {
      if (!mask[l]) unary[pin.node][l] = kForbidden;
    }
  }
  for (std::size_t i = 0; i < problem.nodes.size(); ++i) {
    ep.unary.push_back(static_cast<std::int32_t>(ep.factors.size()));
    ep.factors.push_back(unary_factor(static_cast<NodeIndex>(i), unary[i], bytes[i], rows));
  }
  // Edges sharing one matrix (Matrix copies) share one table: LLaMA3-70B's 80 layers on a 3-D
  // mesh hold ~230 distinct matrices over ~25k edges, 6 GB when copied per edge.
  std::map<std::tuple<const double*, std::int32_t, std::int32_t>, std::shared_ptr<const Table>>
      shared;
  for (Edge& e : problem.edges) {
    const auto key = std::make_tuple(e.cost_us.data(), ep.domains[e.from], ep.domains[e.to]);
    std::shared_ptr<const Table>& table = shared[key];
    if (table == nullptr) {
      auto t = std::make_shared<Table>();
      t->dims = {ep.domains[e.from], ep.domains[e.to]};
      t->entries = static_cast<std::int64_t>(e.cost_us.size());
      t->cost = std::move(e.cost_us).take();
      table = std::move(t);
    }
    ep.factors.push_back({table, {e.from, e.to}});
  }
  for (const Follower& f : problem.followers) {
    auto t = std::make_shared<Table>();
    t->dims = {ep.domains[f.leader], ep.domains[f.node]};
    t->entries = static_cast<std::int64_t>(t->dims[0]) * t->dims[1];
    t->cost.assign(static_cast<std::size_t>(t->entries), kForbidden);
    for (std::int32_t l = 0; l < t->dims[0]; ++l) {
      if (f.label_map[l] >= 0)
        t->cost[static_cast<std::size_t>(l) * t->dims[1] + f.label_map[l]] = 0;
    }
    ep.factors.push_back({std::move(t), {f.leader, f.node}});
  }
  return ep;
}

EngineProblem without_memory(const EngineProblem& problem) {
  EngineProblem out;
  out.domains = problem.domains;
  out.factors = problem.factors;
  out.unary = problem.unary;
  for (std::int32_t id : out.unary)
    out.factors[id].table = scalar_projection(out.factors[id].table);
  return out;
}

}  // namespace dtplan::solve::detail
