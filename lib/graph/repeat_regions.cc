#include "graph/repeat_regions.h"

#include <algorithm>
#include <map>
#include <string>

#include "graph/layer_groups.h"

namespace dtplan::graph {
namespace {

constexpr std::size_t kMinBlockNodes = 2;
// A group that does not join the main layers becomes layers of its own only with blocks this
// large; smaller coincidental repeats (two identical op pairs in one norm backward) stay -1.
constexpr std::size_t kMinStandaloneBlockNodes = 8;

// A claimed group: k blocks, each a list of node indices in graph order.
using Block = std::vector<std::int32_t>;
using Group = std::vector<Block>;

struct Candidate {
  std::size_t coverage = 0;
  std::size_t length = 0;
  std::size_t start = 0;  // position of copy 0's first node in the filtered sequence
  std::vector<std::size_t> anchors;
  std::size_t back = 0;
};

bool better(const Candidate& a, const Candidate& b) {
  if (a.coverage != b.coverage) return a.coverage > b.coverage;
  if (a.length != b.length) return a.length > b.length;
  return a.start < b.start;
}

// One round of step 2 over the unclaimed nodes; empty when no block of kMinBlockNodes exists.
Group claim_next(const std::vector<std::int32_t>& sig, std::vector<bool>& claimed,
                 std::size_t num_sigs) {
  std::vector<std::size_t> counts(num_sigs, 0);
  for (std::size_t i = 0; i < sig.size(); ++i) {
    if (!claimed[i]) ++counts[sig[i]];
  }
  std::vector<std::int32_t> seq;  // node indices
  for (std::size_t i = 0; i < sig.size(); ++i) {
    if (!claimed[i] && counts[sig[i]] >= 2) seq.push_back(static_cast<std::int32_t>(i));
  }
  std::vector<std::int32_t> s(seq.size());  // signature per position
  std::vector<std::vector<std::size_t>> positions(num_sigs);
  for (std::size_t t = 0; t < seq.size(); ++t) {
    s[t] = sig[seq[t]];
    positions[s[t]].push_back(t);
  }
  Candidate best;
  std::vector<bool> visited(num_sigs, false);
  for (std::size_t t = 0; t < seq.size(); ++t) {
    if (visited[s[t]]) continue;
    visited[s[t]] = true;
    const auto& p = positions[s[t]];
    const std::size_t k = p.size();
    std::size_t back = 0;
    for (;; ++back) {
      const std::size_t b = back + 1;
      if (p[0] < b) break;
      bool ok = true;
      for (std::size_t j = 0; ok && j < k; ++j) {
        ok = p[j] >= b && (j == 0 || p[j] - b > p[j - 1]) && s[p[j] - b] == s[p[0] - b];
      }
      if (!ok) break;
    }
    std::size_t fwd = 0;
    for (;; ++fwd) {
      const std::size_t f = fwd + 1;
      bool ok = true;
      for (std::size_t j = 0; ok && j < k; ++j) {
        const std::size_t q = p[j] + f;
        ok = q < s.size() && (j + 1 == k || q + back < p[j + 1]) && s[q] == s[p[0] + f];
      }
      if (!ok) break;
    }
    Candidate c{k * (back + fwd + 1), back + fwd + 1, p[0] - back, p, back};
    if (better(c, best)) best = std::move(c);
    // Signatures at the same offsets in every copy would grow the same blocks: skip them.
    for (std::size_t o = 0; o < back + fwd + 1; ++o) {
      const std::size_t at = p[0] - back + o;
      const auto& q = positions[s[at]];
      if (q.size() != k) continue;
      bool same = true;
      for (std::size_t j = 0; same && j < k; ++j) same = q[j] + back == p[j] + o;
      if (same) visited[s[at]] = true;
    }
  }
  Group group;
  if (best.length < kMinBlockNodes) return group;
  for (std::size_t anchor : best.anchors) {
    Block block;
    for (std::size_t o = 0; o < best.length; ++o) {
      const std::int32_t node = seq[anchor - best.back + o];
      claimed[node] = true;
      block.push_back(node);
    }
    group.push_back(std::move(block));
  }
  return group;
}

// The groups' blocks numbered in order (group, then block), and the data edges between them.
struct Blocks {
  std::vector<std::int32_t> block_id;    // by node: its global block number, or -1
  std::vector<std::size_t> group_start;  // by group: the number of its first block
  std::vector<std::map<std::int32_t, std::int64_t>> adjacent;  // by block: edge counts
};

Blocks number_blocks(const Graph& graph, const std::vector<Group>& groups) {
  const std::size_t n = graph.size();
  Blocks out;
  out.block_id.assign(n, -1);
  std::size_t count = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    out.group_start.push_back(count);
    for (std::size_t j = 0; j < groups[g].size(); ++j) {
      for (std::int32_t node : groups[g][j]) out.block_id[node] = static_cast<std::int32_t>(count);
      ++count;
    }
  }
  out.adjacent.resize(count);
  for (std::size_t i = 0; i < n; ++i) {
    if (out.block_id[i] < 0) continue;
    for (NodeId in : graph.nodes()[i].inputs) {
      const std::int32_t a = out.block_id[i], b = out.block_id[index_of(in)];
      if (b < 0 || a == b) continue;
      ++out.adjacent[a][b];
      ++out.adjacent[b][a];
    }
  }
  return out;
}

// Step 3: the layer of each block. The first (largest) group's k blocks are layers 0..k-1;
// another group of k blocks joins them when its blocks' data edges vote for a bijection onto
// those layers (repeated until no group joins); a group that never joins gets layers of its own
// when its blocks are large enough. Sets `layers` to the number of layers.
std::vector<std::int32_t> tie_groups(const std::vector<Group>& groups, const Blocks& blocks,
                                     std::int32_t& layers) {
  std::vector<std::int32_t> layer_of_block(blocks.adjacent.size(), -1);
  const std::size_t k = groups[0].size();
  for (std::size_t j = 0; j < k; ++j) layer_of_block[j] = static_cast<std::int32_t>(j);
  std::vector<bool> merged(groups.size(), false);
  merged[0] = true;
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t g = 1; g < groups.size(); ++g) {
      if (merged[g] || groups[g].size() != k) continue;
      std::vector<std::int32_t> mapping(k, -1);
      std::vector<bool> taken(k, false);
      bool bijective = true;
      for (std::size_t j = 0; bijective && j < k; ++j) {
        std::vector<std::int64_t> votes(k, 0);
        for (const auto& [other, count] : blocks.adjacent[blocks.group_start[g] + j]) {
          if (layer_of_block[other] >= 0) votes[layer_of_block[other]] += count;
        }
        auto it = std::max_element(votes.begin(), votes.end());  // first max: lowest layer
        const auto layer = static_cast<std::size_t>(it - votes.begin());
        bijective = *it > 0 && !taken[layer];
        if (bijective) {
          taken[layer] = true;
          mapping[j] = static_cast<std::int32_t>(layer);
        }
      }
      if (!bijective) continue;
      for (std::size_t j = 0; j < k; ++j) layer_of_block[blocks.group_start[g] + j] = mapping[j];
      merged[g] = true;
      changed = true;
    }
  }
  // Groups that did not join: layers of their own.
  std::int32_t next = static_cast<std::int32_t>(k);
  for (std::size_t g = 1; g < groups.size(); ++g) {
    if (merged[g] || groups[g][0].size() < kMinStandaloneBlockNodes) continue;
    for (std::size_t j = 0; j < groups[g].size(); ++j) {
      layer_of_block[blocks.group_start[g] + j] = next++;
    }
  }
  layers = next;
  return layer_of_block;
}

}  // namespace

InferredLayers infer_layers(const Graph& graph) {
  const std::size_t n = graph.size();
  // Signature ids in order of first occurrence.
  std::map<std::string, std::int32_t> ids;
  std::vector<std::int32_t> sig(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto [it, fresh] =
        ids.emplace(node_signature(graph, node_id(i)), static_cast<std::int32_t>(ids.size()));
    sig[i] = it->second;
  }
  std::vector<bool> claimed(n, false);
  std::vector<Group> groups;
  for (Group g = claim_next(sig, claimed, ids.size()); !g.empty();
       g = claim_next(sig, claimed, ids.size())) {
    groups.push_back(std::move(g));
  }
  InferredLayers out;
  out.layer_of.assign(n, -1);
  if (groups.empty()) return out;

  // Step 3: tie groups to the first (largest) group's blocks by data edges.
  const Blocks blocks = number_blocks(graph, groups);
  std::int32_t next = 0;
  const std::vector<std::int32_t> layer_of_block = tie_groups(groups, blocks, next);
  const std::vector<std::int32_t>& block_id = blocks.block_id;
  // Step 4: number layers by their first node.
  std::vector<std::int32_t> first_node(static_cast<std::size_t>(next), -1);
  for (std::size_t i = 0; i < n; ++i) {
    if (block_id[i] < 0 || layer_of_block[block_id[i]] < 0) continue;
    auto& f = first_node[layer_of_block[block_id[i]]];
    if (f < 0) f = static_cast<std::int32_t>(i);
  }
  std::vector<std::int32_t> order(static_cast<std::size_t>(next));
  for (std::int32_t l = 0; l < next; ++l) order[l] = l;
  std::sort(order.begin(), order.end(),
            [&](std::int32_t a, std::int32_t b) { return first_node[a] < first_node[b]; });
  std::vector<std::int32_t> renumber(static_cast<std::size_t>(next));
  for (std::size_t r = 0; r < order.size(); ++r) renumber[order[r]] = static_cast<std::int32_t>(r);
  for (std::size_t i = 0; i < n; ++i) {
    if (block_id[i] >= 0 && layer_of_block[block_id[i]] >= 0) {
      out.layer_of[i] = renumber[layer_of_block[block_id[i]]];
    }
  }
  out.layers = next;
  return out;
}

Graph with_inferred_layers(const Graph& graph) {
  InferredLayers inferred = infer_layers(graph);
  Graph out = graph;
  for (std::size_t i = 0; i < out.size(); ++i)
    out.mutable_node(node_id(i)).layer = inferred.layer_of[i];
  out.set_repeats(find_repeated_layers(out));
  return out;
}

}  // namespace dtplan::graph
