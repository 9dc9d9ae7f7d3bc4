#include "sim/link_sharing.h"

#include <algorithm>
#include <map>

namespace dtplan::sim {

SlotLinks slot_links(const StepProgram& program,
                     const std::optional<cost::HardwareProfile>& hardware) {
  const std::int64_t gpn = program.gpus_per_node;
  const std::int64_t nics =
      hardware ? std::clamp<std::int64_t>(hardware->node.nics_per_node, 1, gpn) : gpn;
  const auto slots = static_cast<std::int32_t>(program.ranks.size());
  // Nodes in ascending order of their ranks.
  std::map<std::int64_t, std::int32_t> node_index;
  for (std::int64_t r : program.ranks) node_index.emplace(r / gpn, 0);
  std::int32_t next = 0;
  for (auto& [node, idx] : node_index) idx = next++;
  SlotLinks out;
  out.links = static_cast<std::int32_t>(slots + static_cast<std::int64_t>(next) * nics);
  out.node_of.resize(program.ranks.size());
  out.nic_of.resize(program.ranks.size());
  for (std::size_t s = 0; s < program.ranks.size(); ++s) {
    const std::int64_t r = program.ranks[s];
    out.node_of[s] = node_index[r / gpn];
    out.nic_of[s] = static_cast<std::int32_t>(slots + std::int64_t{out.node_of[s]} * nics +
                                              (r % gpn) * nics / gpn);
  }
  return out;
}

namespace {

// The links of one group: the NICs of its members when it spans several nodes, and the NVLink
// port of every member that shares its node with another; ascending.
std::vector<std::int32_t> group_links(const SlotLinks& slots,
                                      std::span<const std::int32_t> members) {
  std::vector<std::int32_t> mine;
  if (members.size() < 2) return mine;
  std::map<std::int32_t, int> per_node;
  for (std::int32_t m : members) ++per_node[slots.node_of[static_cast<std::size_t>(m)]];
  const bool multi_node = per_node.size() > 1;
  for (std::int32_t m : members) {
    const auto s = static_cast<std::size_t>(m);
    if (multi_node) mine.push_back(slots.nic_of[s]);
    if (per_node[slots.node_of[s]] > 1) mine.push_back(m);
  }
  std::sort(mine.begin(), mine.end());
  mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
  return mine;
}

}  // namespace

LinkMap make_link_map(const StepProgram& program,
                      const std::optional<cost::HardwareProfile>& hardware) {
  return make_link_map(program, slot_links(program, hardware));
}

LinkMap make_link_map(const StepProgram& program, const SlotLinks& at) {
  LinkMap map;
  map.links = at.links;
  for (const GroupPartition& part : program.partitions) {
    std::vector<std::int32_t> offsets{0};
    std::vector<std::int32_t> links;
    for (std::int32_t g = 0; g < part.groups(); ++g) {
      const auto mine = group_links(at, part.group(g));
      links.insert(links.end(), mine.begin(), mine.end());
      offsets.push_back(static_cast<std::int32_t>(links.size()));
    }
    map.offsets.push_back(std::move(offsets));
    map.links_of.push_back(std::move(links));
  }
  return map;
}

}  // namespace dtplan::sim
