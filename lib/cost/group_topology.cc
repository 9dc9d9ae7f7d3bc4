#include "cost/group_topology.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "core/hash.h"
#include "core/limits.h"

namespace dtplan::cost {

namespace {

using core::kMaxRanks;
static_assert(kMaxRanks <= std::numeric_limits<std::int32_t>::max(), "GroupTopology is int32");

core::Error bad(std::string_view what, const std::string& message) {
  return core::Error::bad_input(std::string(what) + ": " + message);
}

}  // namespace

core::Result<GroupTopology> group_topology(std::span<const std::int64_t> ranks,
                                           std::int64_t gpus_per_node, std::string_view what) {
  if (gpus_per_node < 1) {
    return bad(what, "GPUs per node must be >= 1, got " + std::to_string(gpus_per_node));
  }
  if (ranks.empty()) return bad(what, "the group has no ranks");
  if (static_cast<std::int64_t>(ranks.size()) > kMaxRanks) {
    return core::Error::unsupported(std::string(what) + ": " + std::to_string(ranks.size()) +
                                    " ranks is more than the supported maximum of " +
                                    std::to_string(kMaxRanks) + core::limit_note("kMaxRanks"));
  }
  std::vector<std::int64_t> sorted(ranks.begin(), ranks.end());
  std::sort(sorted.begin(), sorted.end());
  if (sorted.front() < 0) {
    return bad(what, "rank " + std::to_string(sorted.front()) + " is negative");
  }
  auto dup = std::adjacent_find(sorted.begin(), sorted.end());
  if (dup != sorted.end()) return bad(what, "rank " + std::to_string(*dup) + " appears twice");

  // Sorted ranks visit nodes in order, so members of one node are adjacent.
  GroupTopology t;
  t.ranks = static_cast<std::int32_t>(sorted.size());
  t.nodes = 0;
  t.min_ranks_per_node = std::numeric_limits<std::int32_t>::max();
  t.max_ranks_per_node = 0;
  std::size_t i = 0;
  while (i < sorted.size()) {
    std::int64_t node = sorted[i] / gpus_per_node;
    std::size_t j = i;
    while (j < sorted.size() && sorted[j] / gpus_per_node == node) ++j;
    auto count = static_cast<std::int32_t>(j - i);
    t.min_ranks_per_node = std::min(t.min_ranks_per_node, count);
    t.max_ranks_per_node = std::max(t.max_ranks_per_node, count);
    ++t.nodes;
    i = j;
  }
  return t;
}

core::Result<GroupTopology> contiguous_topology(std::int64_t n, std::int64_t gpus_per_node,
                                                std::string_view what) {
  if (n < 1) return bad(what, "group size must be at least 1, got " + std::to_string(n));
  if (n > kMaxRanks) {
    return core::Error::unsupported(std::string(what) + ": group size " + std::to_string(n) +
                                    " is more than the supported maximum of " +
                                    std::to_string(kMaxRanks) + " ranks" +
                                    core::limit_note("kMaxRanks"));
  }
  if (gpus_per_node < 1) {
    return bad(what, "GPUs per node must be >= 1, got " + std::to_string(gpus_per_node));
  }
  GroupTopology t;
  t.ranks = static_cast<std::int32_t>(n);
  std::int64_t full = n / gpus_per_node;
  std::int64_t rest = n % gpus_per_node;
  t.nodes = static_cast<std::int32_t>(full + (rest > 0 ? 1 : 0));
  t.max_ranks_per_node = static_cast<std::int32_t>(full > 0 ? gpus_per_node : rest);
  t.min_ranks_per_node = static_cast<std::int32_t>(rest > 0 ? rest : gpus_per_node);
  return t;
}

GroupTopology uniform_topology(std::int32_t nodes, std::int32_t ranks_per_node) {
  return {nodes * ranks_per_node, nodes, ranks_per_node, ranks_per_node};
}

std::string describe(const GroupTopology& t) {
  std::string out = std::to_string(t.ranks) + (t.ranks == 1 ? " rank (" : " ranks (");
  out += std::to_string(t.nodes) + (t.nodes == 1 ? " node" : " nodes");
  if (t.uniform()) {
    out += " x " + std::to_string(t.max_ranks_per_node) + ")";
  } else {
    out += ", " + std::to_string(t.min_ranks_per_node) + "-" +
           std::to_string(t.max_ranks_per_node) + " per node)";
  }
  return out;
}

std::uint64_t hash_value(const GroupTopology& t) {
  auto u = [](std::int32_t v) { return static_cast<std::uint64_t>(static_cast<std::uint32_t>(v)); };
  std::uint64_t h = (u(t.ranks) << 32) ^ u(t.nodes);
  h ^= (u(t.min_ranks_per_node) << 48) ^ (u(t.max_ranks_per_node) << 16);
  return core::splitmix64(h);
}

}  // namespace dtplan::cost
