#include "solve/stack/block_sweep.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <utility>

#include "solve/evaluate.h"
#include "solve/stack/problem_digest.h"

namespace dtplan::solve::detail {
namespace {

double total_cost(const Problem& problem, const std::vector<LabelIndex>& labels) {
  const auto ev = evaluate(problem, labels);
  return ev.ok() && ev->feasible() ? ev->total_us : kForbidden;
}

}  // namespace

Problem block_problem(const Problem& problem, const std::vector<NodeIndex>& block,
                      const std::vector<LabelIndex>& labels) {
  std::vector<NodeIndex> at(problem.nodes.size(), -1);
  Problem q;
  for (NodeIndex v : block) {
    at[static_cast<std::size_t>(v)] = static_cast<NodeIndex>(q.nodes.size());
    q.nodes.push_back(problem.nodes[static_cast<std::size_t>(v)]);
  }
  std::vector<std::int32_t> slots(block.size(), 0);
  for (const Edge& e : problem.edges) {
    const NodeIndex from = at[static_cast<std::size_t>(e.from)];
    const NodeIndex to = at[static_cast<std::size_t>(e.to)];
    if (from >= 0 && to >= 0) {
      q.edges.push_back({from, to, slots[static_cast<std::size_t>(to)]++, e.cost_us});
    } else if (from >= 0) {
      auto& unary = q.nodes[static_cast<std::size_t>(from)].cost_us;
      for (LabelIndex l = 0; l < static_cast<LabelIndex>(unary.size()); ++l) {
        unary[static_cast<std::size_t>(l)] +=
            pair_cost(problem, e, l, labels[static_cast<std::size_t>(e.to)]);
      }
    } else if (to >= 0) {
      auto& unary = q.nodes[static_cast<std::size_t>(to)].cost_us;
      for (LabelIndex l = 0; l < static_cast<LabelIndex>(unary.size()); ++l) {
        unary[static_cast<std::size_t>(l)] +=
            pair_cost(problem, e, labels[static_cast<std::size_t>(e.from)], l);
      }
    }
  }
  for (const MemoryRow& row : problem.memory) {
    MemoryRow kept{row.name, {}, row.low_bytes, row.high_bytes};
    std::int64_t fixed = 0;
    for (const MemoryTerm& t : row.terms) {
      const NodeIndex v = at[static_cast<std::size_t>(t.node)];
      if (v >= 0) {
        kept.terms.push_back({v, t.bytes});
      } else {
        fixed += t.bytes[static_cast<std::size_t>(labels[static_cast<std::size_t>(t.node)])];
      }
    }
    if (kept.terms.empty()) continue;  // a constant: met by `labels`
    // Σ block bytes >= low - fixed (never below 0: bytes are); <= high - fixed (unbounded stays).
    kept.low_bytes = std::max<std::int64_t>(0, row.low_bytes - fixed);
    if (row.high_bytes != std::numeric_limits<std::int64_t>::max()) kept.high_bytes -= fixed;
    q.memory.push_back(std::move(kept));
  }
  return q;
}

std::vector<LabelIndex> sweep_blocks(const Problem& problem, std::vector<LabelIndex> labels,
                                     const BlockSolve& solve,
                                     const std::function<bool(double)>& enough,
                                     std::chrono::steady_clock::time_point deadline,
                                     BlockSweepStats& stats) {
  double cost = total_cost(problem, labels);
  if (!(cost < kForbidden)) return labels;
  std::map<std::uint64_t, std::optional<std::vector<LabelIndex>>> optima;
  std::map<const double*, std::uint64_t> matrices;
  for (const RepeatGroup& group : problem.repeats) {
    for (const std::vector<NodeIndex>& block : group.blocks) {
      if (enough(cost) || std::chrono::steady_clock::now() > deadline) return labels;
      const Problem q = block_problem(problem, block, labels);
      // A collision could only miss an improvement: reused labels are evaluated on the block's
      // own problem before they are taken.
      const std::uint64_t key = problem_digest(q, matrices);
      auto found = optima.find(key);
      if (found == optima.end()) {
        found = optima.emplace(key, solve(q)).first;
        ++stats.solved;
      } else {
        ++stats.reused;
      }
      const std::optional<std::vector<LabelIndex>>& best = found->second;
      if (!best || best->size() != block.size()) continue;
      std::vector<LabelIndex> own(block.size());
      for (std::size_t k = 0; k < block.size(); ++k) own[k] = labels[block[k]];
      if (!(total_cost(q, *best) < total_cost(q, own))) continue;
      std::vector<LabelIndex> next = labels;
      for (std::size_t k = 0; k < block.size(); ++k) next[block[k]] = (*best)[k];
      // Taken where the whole problem agrees (the block's costs are the whole one's, summed
      // apart, so rounding alone could disagree).
      if (const double c = total_cost(problem, next); c < cost) {
        stats.gain_us += cost - c;
        cost = c;
        labels = std::move(next);
      }
    }
  }
  return labels;
}

}  // namespace dtplan::solve::detail
