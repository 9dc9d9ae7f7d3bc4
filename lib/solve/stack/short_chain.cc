#include "solve/stack/short_chain.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <ranges>
#include <utility>

namespace dtplan::solve::detail {

const RepeatGroup* longest_group(const Problem& problem) {
  const RepeatGroup* best = nullptr;
  for (const RepeatGroup& g : problem.repeats) {
    if (best == nullptr || g.blocks.size() > best->blocks.size()) best = &g;
  }
  return best;
}

BlockPositions block_positions(const Problem& problem, const RepeatGroup& group) {
  BlockPositions out{std::vector<std::int32_t>(problem.nodes.size(), -1),
                     std::vector<std::int32_t>(problem.nodes.size(), -1)};
  for (std::size_t b = 0; b < group.blocks.size(); ++b) {
    const auto& members = group.blocks[b];
    for (std::size_t p = 0; p < members.size(); ++p) {
      out.block[static_cast<std::size_t>(members[p])] = static_cast<std::int32_t>(b);
      out.position[static_cast<std::size_t>(members[p])] = static_cast<std::int32_t>(p);
    }
  }
  return out;
}

std::optional<ShortChain> short_chain(const Problem& problem) {
  if (!problem.pins.empty() || !problem.followers.empty()) return std::nullopt;
  const RepeatGroup* group = longest_group(problem);
  if (group == nullptr || group->blocks.size() < 4) return std::nullopt;
  const auto n = static_cast<std::int32_t>(group->blocks.size());
  const std::size_t nodes = problem.nodes.size();
  const BlockPositions positions = block_positions(problem, *group);
  const std::vector<std::int32_t>& block = positions.block;
  const std::vector<std::int32_t>& position = positions.position;
  for (const Edge& e : problem.edges) {
    if (block[e.from] >= 0 && block[e.to] >= 0 && std::abs(block[e.from] - block[e.to]) > 1) {
      return std::nullopt;
    }
  }
  // Kept: outside nodes and blocks 0, 1 and n - 1, in the long problem's order.
  auto kept = [&](NodeIndex v) { return block[v] <= 1 || block[v] == n - 1; };
  ShortChain out;
  std::vector<NodeIndex> index(nodes, -1);
  for (std::size_t v = 0; v < nodes; ++v) {
    if (!kept(static_cast<NodeIndex>(v))) continue;
    index[v] = static_cast<NodeIndex>(out.problem.nodes.size());
    out.problem.nodes.push_back(problem.nodes[v]);
  }
  // A node of blocks 1 .. n - 2 stands for its position in block 1.
  auto stand_in = [&](NodeIndex v) {
    return block[v] >= 1 && block[v] <= n - 2 ? index[group->blocks[1][position[v]]] : index[v];
  };
  out.source.resize(nodes);
  out.middle_block.resize(nodes);
  out.middle = n - 2;
  for (std::size_t v = 0; v < nodes; ++v) {
    out.source[v] = stand_in(static_cast<NodeIndex>(v));
    out.middle_block[v] = block[v] >= 1 && block[v] <= n - 2 ? block[v] : 0;
  }
  std::map<std::pair<NodeIndex, std::int32_t>, std::int32_t> by_consumer;  // (to, slot) -> edge
  for (const Edge& e : problem.edges) {
    const bool tail = std::min(block[e.from], block[e.to]) == n - 2 &&
                      std::max(block[e.from], block[e.to]) == n - 1;
    if (!(kept(e.from) && kept(e.to)) && !tail) continue;
    const NodeIndex to = tail ? stand_in(e.to) : index[e.to];
    by_consumer[{to, e.slot}] = static_cast<std::int32_t>(out.problem.edges.size());
    out.problem.edges.push_back({tail ? stand_in(e.from) : index[e.from], to, e.slot, e.cost_us});
  }
  // Each end's messages come from the short edge where that end's node plays the same part: a
  // middle block's edge from its predecessor like block 1's from block 0, to its successor like
  // block 1's to block n - 1; every other edge like the short edge it stands for.
  auto at_block = [&](NodeIndex v, std::int32_t b) { return index[group->blocks[b][position[v]]]; };
  auto short_edge = [&](NodeIndex to, std::int32_t slot) {
    const auto it = by_consumer.find({to, slot});
    return it == by_consumer.end() ? -1 : it->second;
  };
  for (const Edge& e : problem.edges) {
    std::array<std::int32_t, 2>& ends = out.edge_source.emplace_back();
    const std::int32_t bf = block[e.from];
    const std::int32_t bt = block[e.to];
    if (bf < 0 || bt < 0 || bf == bt || (kept(e.from) && kept(e.to)) || std::min(bf, bt) == n - 2) {
      ends.fill(short_edge(stand_in(e.to), e.slot));
      continue;
    }
    // Blocks b and b + 1, not both kept: the earlier end as block 1 towards block n - 1, the
    // later end as block 1 from block 0.
    const bool from_earlier = bf < bt;
    ends[from_earlier ? 0 : 1] =
        short_edge(from_earlier ? at_block(e.to, n - 1) : stand_in(e.to), e.slot);
    ends[from_earlier ? 1 : 0] =
        short_edge(from_earlier ? stand_in(e.to) : at_block(e.to, 0), e.slot);
  }
  // Each memory row counts a short node once per long node that copies it: its term is the sum
  // of theirs, so the row holds on the short chain exactly when it holds lengthened.
  for (const MemoryRow& row : problem.memory) {
    MemoryRow& r = out.problem.memory.emplace_back();
    r.name = row.name;
    r.low_bytes = row.low_bytes;
    r.high_bytes = row.high_bytes;
    std::vector<std::int32_t> term_of(out.problem.nodes.size(), -1);
    for (const MemoryTerm& t : row.terms) {
      const NodeIndex u = out.source[static_cast<std::size_t>(t.node)];
      std::int32_t& k = term_of[static_cast<std::size_t>(u)];
      if (k < 0) {
        k = static_cast<std::int32_t>(r.terms.size());
        r.terms.push_back({u, std::vector<std::int64_t>(t.bytes.size(), 0)});
      }
      std::vector<std::int64_t>& sum = r.terms[static_cast<std::size_t>(k)].bytes;
      if (sum.size() != t.bytes.size()) return std::nullopt;
      for (std::size_t l = 0; l < sum.size(); ++l) sum[l] += t.bytes[l];
    }
  }
  RepeatGroup three;
  for (const std::int32_t b : {0, 1, n - 1}) {
    three.blocks.emplace_back();
    for (NodeIndex v : group->blocks[b]) three.blocks.back().push_back(index[v]);
  }
  out.problem.repeats.push_back(std::move(three));
  if (!validate(out.problem).ok()) return std::nullopt;
  return out;
}

EdgeMessages lengthen_messages(const ShortChain& chain, const EdgeMessages& messages) {
  EdgeMessages out(chain.edge_source.size());
  for (std::size_t e = 0; e < out.size(); ++e) {
    for (std::size_t end = 0; end < 2; ++end) {
      const std::int32_t s = chain.edge_source[e][end];
      if (s >= 0 && static_cast<std::size_t>(s) < messages.size()) out[e][end] = messages[s][end];
    }
  }
  return out;
}

std::vector<LabelIndex> lengthen(const ShortChain& chain, const std::vector<LabelIndex>& labels) {
  std::vector<LabelIndex> out(chain.source.size());
  for (std::size_t v = 0; v < out.size(); ++v) out[v] = labels[chain.source[v]];
  return out;
}

std::vector<LabelIndex> lengthen_mixed(const ShortChain& chain, const std::vector<LabelIndex>& base,
                                       const std::vector<LabelIndex>& other, std::int32_t k,
                                       bool front) {
  std::vector<LabelIndex> out(chain.source.size());
  for (std::size_t v = 0; v < out.size(); ++v) {
    const std::int32_t b = chain.middle_block[v];
    const bool swapped = b > 0 && (front ? b <= k : b > chain.middle - k);
    out[v] = (swapped ? other : base)[chain.source[v]];
  }
  return out;
}

std::vector<std::vector<LabelIndex>> mixes_within(const ShortChain& chain,
                                                  const std::vector<MemoryRow>& rows,
                                                  const std::vector<LabelIndex>& over,
                                                  const std::vector<LabelIndex>& under) {
  std::vector<std::vector<LabelIndex>> out;
  for (const bool front : {true, false}) {
    for (const bool from_over : {true, false}) {
      const std::vector<LabelIndex>& base = from_over ? over : under;
      const std::vector<LabelIndex>& other = from_over ? under : over;
      auto meets = [&](std::int32_t k) {
        return meets_memory(rows, lengthen_mixed(chain, base, other, k, front));
      };
      // Based on `over`, the mixes meet the rows from some k on: the first such k. Based on
      // `under`, up to some k: the first k that does not, less one.
      // (Bisection: the bytes move one way as blocks are swapped; the mix found is checked.)
      const auto ks = std::views::iota(std::int32_t{0}, chain.middle + 1);
      const auto it =
          std::ranges::partition_point(ks, [&](std::int32_t k) { return meets(k) != from_over; });
      const auto first = static_cast<std::int32_t>(it - ks.begin());
      const std::int32_t k = from_over ? first : first - 1;
      if (k < 0 || k > chain.middle || !meets(k)) continue;  // no mix meets them
      out.push_back(lengthen_mixed(chain, base, other, k, front));
    }
  }
  return out;
}

}  // namespace dtplan::solve::detail
