#include "solve/stack/block_bound.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "solve/stack/problem_digest.h"
#include "solve/stack/short_chain.h"

namespace dtplan::solve::detail {
namespace {

constexpr double kNoBound = -std::numeric_limits<double>::infinity();

// λ at one end of an edge for a label (empty or non-finite: 0).
double lambda(const std::vector<double>& end, std::size_t label) {
  if (label >= end.size()) return 0;
  const double x = end[label];
  return std::isfinite(x) ? x : 0;
}

// The problem reparametrized by the messages, read a node or an edge at a time.
class Reparametrized {
 public:
  Reparametrized(const Problem& problem, const EdgeMessages& messages)
      : problem_(problem), messages_(messages), unary_(problem.nodes.size()) {
    for (std::size_t v = 0; v < unary_.size(); ++v) unary_[v] = problem.nodes[v].cost_us;
    for (std::size_t e = 0; e < problem.edges.size() && e < messages.size(); ++e) {
      const Edge& edge = problem.edges[e];
      for (std::size_t end = 0; end < 2; ++end) {
        auto& u = unary_[static_cast<std::size_t>(end == 0 ? edge.from : edge.to)];
        for (std::size_t l = 0; l < u.size(); ++l) u[l] += lambda(messages[e][end], l);
      }
    }
  }

  [[nodiscard]] const std::vector<double>& unary(NodeIndex v) const {
    return unary_[static_cast<std::size_t>(v)];
  }

  // Edge e's θ' matrix, row-major like its costs.
  [[nodiscard]] std::vector<double> edge(std::size_t e) const {
    const Edge& edge = problem_.edges[e];
    const std::size_t rows = unary_[static_cast<std::size_t>(edge.from)].size();
    const std::size_t cols = unary_[static_cast<std::size_t>(edge.to)].size();
    std::vector<double> m(edge.cost_us.begin(), edge.cost_us.end());
    const auto* ends = e < messages_.size() ? &messages_[e] : nullptr;
    for (std::size_t a = 0; a < rows; ++a) {
      const double from = ends != nullptr ? lambda((*ends)[0], a) : 0;
      for (std::size_t b = 0; b < cols; ++b) {
        m[a * cols + b] -= from + (ends != nullptr ? lambda((*ends)[1], b) : 0);
      }
    }
    return m;
  }

 private:
  const Problem& problem_;
  const EdgeMessages& messages_;
  std::vector<std::vector<double>> unary_;
};

double least(const std::vector<double>& xs) {
  double m = std::numeric_limits<double>::infinity();
  for (double x : xs) m = std::min(m, x);
  return m;
}

}  // namespace

EdgeMessages periodic_messages(const Problem& problem, const EdgeMessages& messages) {
  EdgeMessages out = messages;
  const RepeatGroup* group = longest_group(problem);
  if (group == nullptr || group->blocks.size() < 3) return out;
  const auto n = static_cast<std::int32_t>(group->blocks.size());
  const BlockPositions positions = block_positions(problem, *group);
  const std::vector<std::int32_t>& block = positions.block;
  const std::vector<std::int32_t>& position = positions.position;
  std::map<std::pair<NodeIndex, std::int32_t>, std::size_t> by_slot;  // (to, slot) -> edge
  for (std::size_t e = 0; e < problem.edges.size(); ++e) {
    by_slot.emplace(std::pair{problem.edges[e].to, problem.edges[e].slot}, e);
  }
  const std::int32_t centre = n / 2;
  for (std::size_t e = 0; e < problem.edges.size() && e < messages.size(); ++e) {
    const Edge& edge = problem.edges[e];
    const std::int32_t bf = block[static_cast<std::size_t>(edge.from)];
    const std::int32_t bt = block[static_cast<std::size_t>(edge.to)];
    const std::int32_t low = std::min(bf < 0 ? n : bf, bt < 0 ? n : bt);
    const std::int32_t high = std::max(bf, bt);
    if (low < 1 || high > n - 2) continue;  // touches block 0 or n - 1, or no block at all
    const std::int32_t shift = centre - low;
    auto moved = [&](NodeIndex v) {
      const std::int32_t b = block[static_cast<std::size_t>(v)];
      if (b < 0) return v;
      const auto& nodes = group->blocks[static_cast<std::size_t>(b + shift)];
      return nodes[static_cast<std::size_t>(position[static_cast<std::size_t>(v)])];
    };
    const auto copy = by_slot.find({moved(edge.to), edge.slot});
    if (copy == by_slot.end() || problem.edges[copy->second].from != moved(edge.from)) continue;
    out[e] = messages[copy->second];
  }
  return out;
}

namespace {

// The parts of a block bound: the nodes outside the group with its block 0 (part 0), then every
// other block alone; the edges inside each part; each node's index within its part; and the
// least θ' of every edge between parts, which the bound adds whatever the parts choose.
struct Parts {
  std::vector<std::vector<NodeIndex>> members;
  std::vector<std::vector<std::size_t>> inside;
  std::vector<NodeIndex> at;
  double crossing_us = 0;
};

Parts split_parts(const Problem& problem, const RepeatGroup& group, const Reparametrized& r) {
  Parts out;
  std::vector<std::int32_t> part(problem.nodes.size(), 0);
  const auto parts = static_cast<std::int32_t>(group.blocks.size());
  for (std::int32_t b = 1; b < parts; ++b) {
    for (NodeIndex v : group.blocks[static_cast<std::size_t>(b)]) {
      part[static_cast<std::size_t>(v)] = b;
    }
  }
  out.members.resize(static_cast<std::size_t>(parts));
  for (std::size_t v = 0; v < part.size(); ++v) {
    out.members[static_cast<std::size_t>(part[v])].push_back(static_cast<NodeIndex>(v));
  }
  out.inside.resize(static_cast<std::size_t>(parts));
  for (std::size_t e = 0; e < problem.edges.size(); ++e) {
    const std::int32_t pf = part[static_cast<std::size_t>(problem.edges[e].from)];
    if (pf == part[static_cast<std::size_t>(problem.edges[e].to)]) {
      out.inside[static_cast<std::size_t>(pf)].push_back(e);
    } else {
      out.crossing_us += least(r.edge(e));
    }
  }
  out.at.assign(problem.nodes.size(), -1);
  for (const auto& nodes : out.members) {
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      out.at[static_cast<std::size_t>(nodes[k])] = static_cast<NodeIndex>(k);
    }
  }
  return out;
}

// Part p alone as a problem in its θ' costs, nodes numbered by their index within the part.
Problem part_problem(const Problem& problem, const Parts& parts, std::int32_t p,
                     const Reparametrized& r) {
  Problem q;
  const auto& nodes = parts.members[static_cast<std::size_t>(p)];
  for (NodeIndex v : nodes) q.nodes.push_back({"", r.unary(v)});
  std::vector<std::int32_t> slots(nodes.size(), 0);
  for (std::size_t e : parts.inside[static_cast<std::size_t>(p)]) {
    const NodeIndex from = parts.at[static_cast<std::size_t>(problem.edges[e].from)];
    const NodeIndex to = parts.at[static_cast<std::size_t>(problem.edges[e].to)];
    q.edges.push_back({from, to, slots[static_cast<std::size_t>(to)]++, Matrix(r.edge(e))});
  }
  return q;
}

}  // namespace

BlockBound block_bound(const Problem& problem, const EdgeMessages& messages, const PartSolve& solve,
                       std::chrono::steady_clock::time_point deadline, BlockBoundStats& stats) {
  const RepeatGroup* group = longest_group(problem);
  if (group == nullptr || group->blocks.size() < 2) return {};
  const EdgeMessages periodic = periodic_messages(problem, messages);
  const Reparametrized r(problem, periodic);
  const Parts split = split_parts(problem, *group, r);
  const auto parts = static_cast<std::int32_t>(group->blocks.size());
  const auto& members = split.members;
  const auto& inside = split.inside;
  const auto& at = split.at;
  double total = split.crossing_us;
  const std::array<std::vector<double>, 2> no_messages;
  auto ends = [&](std::size_t e) -> const std::array<std::vector<double>, 2>& {
    return e < periodic.size() ? periodic[e] : no_messages;
  };
  // Parts p and o have one θ' problem where their θ' unaries, their edges' local ends, matrices
  // and messages agree: found without building either (a digest first, then this comparison).
  std::map<const double*, std::uint64_t> matrices;  // the problem's own: they outlive the cache
  auto digest = [&](std::int32_t p) {
    Digest d;
    for (NodeIndex v : members[static_cast<std::size_t>(p)]) d.add(r.unary(v));
    for (std::size_t e : inside[static_cast<std::size_t>(p)]) {
      const Edge& edge = problem.edges[e];
      d.add(static_cast<std::uint64_t>(at[static_cast<std::size_t>(edge.from)]) << 32 |
            static_cast<std::uint32_t>(at[static_cast<std::size_t>(edge.to)]));
      d.add(matrix_digest(edge.cost_us, matrices));
      for (const auto& end : ends(e)) d.add(end);
    }
    return d.value();
  };
  auto same = [&](std::int32_t p, std::int32_t o) {
    const auto& np = members[static_cast<std::size_t>(p)];
    const auto& no = members[static_cast<std::size_t>(o)];
    const auto& ep = inside[static_cast<std::size_t>(p)];
    const auto& eo = inside[static_cast<std::size_t>(o)];
    if (np.size() != no.size() || ep.size() != eo.size()) return false;
    for (std::size_t k = 0; k < np.size(); ++k) {
      if (r.unary(np[k]) != r.unary(no[k])) return false;
    }
    for (std::size_t j = 0; j < ep.size(); ++j) {
      const Edge& x = problem.edges[ep[j]];
      const Edge& y = problem.edges[eo[j]];
      if (at[static_cast<std::size_t>(x.from)] != at[static_cast<std::size_t>(y.from)] ||
          at[static_cast<std::size_t>(x.to)] != at[static_cast<std::size_t>(y.to)] ||
          !(x.cost_us == y.cost_us) || ends(ep[j]) != ends(eo[j])) {
        return false;
      }
    }
    return true;
  };
  // Parts solved so far, by digest: the first such part and what was found of it.
  std::multimap<std::uint64_t, std::pair<std::int32_t, PartSolution>> solved;
  BlockBound out;
  out.labels.assign(problem.nodes.size(), 0);
  bool labelled = true;
  for (std::int32_t p = 0; p < parts; ++p) {
    if (std::chrono::steady_clock::now() > deadline) return {};
    const std::uint64_t key = digest(p);
    const PartSolution* found = nullptr;
    for (auto [it, end] = solved.equal_range(key); it != end && found == nullptr; ++it) {
      if (same(p, it->second.first)) found = &it->second.second;
    }
    const auto& nodes = members[static_cast<std::size_t>(p)];
    if (found != nullptr) {
      ++stats.reused;
    } else {
      ++stats.solved;
      found = &solved.emplace(key, std::pair{p, solve(part_problem(problem, split, p, r))})
                   ->second.second;
    }
    if (!(found->lower_bound_us > kNoBound)) return {};
    total += found->lower_bound_us;
    labelled = labelled && found->labels.size() == nodes.size();
    for (std::size_t k = 0; labelled && k < nodes.size(); ++k) {
      out.labels[static_cast<std::size_t>(nodes[k])] = found->labels[k];
    }
  }
  out.lower_bound_us = total;
  if (!labelled) out.labels.clear();
  return out;
}

}  // namespace dtplan::solve::detail
