#include "sim/reduction_order.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <string>

#include "cost/group_topology.h"

namespace dtplan::sim {

std::string_view reduction_order_name(ReductionOrder order) {
  switch (order) {
    case ReductionOrder::kNone:
      return "none";
    case ReductionOrder::kRing:
      return "ring";
    case ReductionOrder::kTree:
      return "tree";
  }
  return "none";
}

ReductionOrder reduction_order_of(cost::Algorithm algorithm) {
  switch (algorithm) {
    case cost::Algorithm::kTree:
    case cost::Algorithm::kNvls:
    case cost::Algorithm::kNvlsTree:
    case cost::Algorithm::kCollNetDirect:
    case cost::Algorithm::kCollNetChain:
      return ReductionOrder::kTree;
    case cost::Algorithm::kRing:
    case cost::Algorithm::kPat:
    case cost::Algorithm::kP2p:
    case cost::Algorithm::kMeasured:
    case cost::Algorithm::kNone:
      return ReductionOrder::kRing;
  }
  return ReductionOrder::kRing;
}

core::Result<GroupLayout> group_layout(std::span<const std::int64_t> ranks,
                                       std::int64_t gpus_per_node, std::string_view what) {
  // group_topology validates the list (non-empty, non-negative, distinct, gpus_per_node >= 1).
  DTPLAN_CHECK(cost::group_topology(ranks, gpus_per_node, what));
  const auto n = static_cast<std::int32_t>(ranks.size());
  GroupLayout layout;
  // Nodes in order of first appearance; members by ascending global rank.
  std::vector<std::int64_t> node_ids;
  for (std::int32_t g = 0; g < n; ++g) {
    std::int64_t node = ranks[static_cast<std::size_t>(g)] / gpus_per_node;
    auto it = std::find(node_ids.begin(), node_ids.end(), node);
    if (it == node_ids.end()) {
      node_ids.push_back(node);
      layout.nodes.emplace_back();
      it = node_ids.end() - 1;
    }
    layout.nodes[static_cast<std::size_t>(it - node_ids.begin())].push_back(g);
  }
  for (auto& members : layout.nodes) {
    std::sort(members.begin(), members.end(), [&](std::int32_t a, std::int32_t b) {
      return ranks[static_cast<std::size_t>(a)] < ranks[static_cast<std::size_t>(b)];
    });
  }
  // The cycle of node blocks, rotated so that group rank 0 sits at position 0.
  std::vector<std::int32_t> cycle;
  for (const auto& members : layout.nodes)
    cycle.insert(cycle.end(), members.begin(), members.end());
  auto zero = std::find(cycle.begin(), cycle.end(), 0);
  std::rotate(cycle.begin(), zero, cycle.end());
  layout.ring = std::move(cycle);
  layout.ring_position.assign(static_cast<std::size_t>(n), 0);
  for (std::int32_t p = 0; p < n; ++p) {
    layout.ring_position[static_cast<std::size_t>(layout.ring[static_cast<std::size_t>(p)])] = p;
  }
  return layout;
}

namespace {

// Children of node r in tree 0 over m nodes (NCCL's bit rule, see the header).
std::vector<std::int32_t> tree0_children(std::int32_t m, std::int32_t r) {
  std::vector<std::int32_t> out;
  if (r == 0) {
    if (m > 1)
      out.push_back(static_cast<std::int32_t>(std::bit_floor(static_cast<std::uint32_t>(m - 1))));
    return out;
  }
  const std::int32_t low = r & -r;
  if (low == 1) return out;
  out.push_back(r - low / 2);
  for (std::int32_t h = low / 2; h >= 1; h /= 2) {
    if (r + h < m) {
      out.push_back(r + h);
      break;
    }
  }
  return out;
}

}  // namespace

NodeTree binary_tree(std::int32_t nodes, int which) {
  assert(nodes >= 1 && (which == 0 || which == 1));
  const std::int32_t m = nodes;
  // role(r): the tree-0 node that real node r plays; real(s): its inverse.
  auto role = [&](std::int32_t r) {
    if (which == 0) return r;
    return m % 2 == 0 ? m - 1 - r : (r - 1 + m) % m;
  };
  auto real = [&](std::int32_t s) {
    if (which == 0) return s;
    return m % 2 == 0 ? m - 1 - s : (s + 1) % m;
  };
  NodeTree tree;
  tree.parent.assign(static_cast<std::size_t>(m), -1);
  tree.children.assign(static_cast<std::size_t>(m), {});
  tree.root = real(0);
  for (std::int32_t r = 0; r < m; ++r) {
    for (std::int32_t child_role : tree0_children(m, role(r))) {
      std::int32_t child = real(child_role);
      tree.children[static_cast<std::size_t>(r)].push_back(child);
      tree.parent[static_cast<std::size_t>(child)] = r;
    }
    std::sort(tree.children[static_cast<std::size_t>(r)].begin(),
              tree.children[static_cast<std::size_t>(r)].end());
  }
  return tree;
}

}  // namespace dtplan::sim
