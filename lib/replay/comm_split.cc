#include "replay/comm_split.h"

#include <algorithm>

namespace dtplan::replay {

std::string groups_string(const std::vector<Group>& groups) {
  std::string out = "[";
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (i > 0) out += ",";
    out += sim::group_string(groups[i]);
  }
  return out + "]";
}

std::vector<Group> canonical_groups(std::vector<Group> groups) {
  std::sort(groups.begin(), groups.end());
  return groups;
}

SplitArgs split_args(const std::vector<Group>& groups, std::int64_t rank) {
  for (std::size_t g = 0; g < groups.size(); ++g) {
    auto it = std::find(groups[g].begin(), groups[g].end(), rank);
    if (it != groups[g].end()) {
      return {static_cast<int>(g), static_cast<int>(it - groups[g].begin())};
    }
  }
  return {};
}

}  // namespace dtplan::replay
