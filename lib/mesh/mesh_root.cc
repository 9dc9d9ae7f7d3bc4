#include "mesh/mesh_root.h"

#include <algorithm>
#include <cassert>
#include <string>

namespace dtplan::mesh {

core::Result<std::shared_ptr<MeshRoot>> MeshRoot::create(std::vector<std::int64_t> rank_map,
                                                         std::vector<layout::Layout> dims,
                                                         std::vector<std::string> names) {
  auto n = static_cast<std::int64_t>(rank_map.size());
  if (n > kMaxRanks) {
    return core::Error::unsupported("mesh of " + std::to_string(n) +
                                    " ranks exceeds the supported maximum of " +
                                    std::to_string(kMaxRanks) + core::limit_note("kMaxRanks"));
  }
  std::shared_ptr<MeshRoot> root(new MeshRoot());
  root->by_rank_.reserve(rank_map.size());
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t rank = rank_map[static_cast<std::size_t>(i)];
    if (rank < 0) {
      return core::Error::bad_input("mesh ranks: rank " + std::to_string(rank) + " at position " +
                                    std::to_string(i) + " is negative");
    }
    root->by_rank_.emplace_back(rank, i);
  }
  std::sort(root->by_rank_.begin(), root->by_rank_.end());
  for (std::size_t i = 0; i + 1 < root->by_rank_.size(); ++i) {
    if (root->by_rank_[i].first != root->by_rank_[i + 1].first) continue;
    std::size_t end = i + 1;
    while (end < root->by_rank_.size() && root->by_rank_[end].first == root->by_rank_[i].first) {
      ++end;
    }
    return core::Error::bad_input("mesh ranks: rank " + std::to_string(root->by_rank_[i].first) +
                                  " appears at positions " +
                                  std::to_string(root->by_rank_[i].second) + " and " +
                                  std::to_string(root->by_rank_[i + 1].second) +
                                  " (rank_coords.size(0) must be 0 or 1, got " +
                                  std::to_string(end - i) + "); each rank may appear once");
  }
  root->rank_map_ = std::move(rank_map);
  root->dims_ = std::move(dims);
  root->names_ = std::move(names);
  return root;
}

std::optional<std::int64_t> MeshRoot::index_of(std::int64_t rank) const {
  auto it = std::lower_bound(by_rank_.begin(), by_rank_.end(),
                             std::pair<std::int64_t, std::int64_t>(rank, 0));
  if (it == by_rank_.end() || it->first != rank) return std::nullopt;
  return it->second;
}

const FlattenedEntry* MeshRoot::find_flattened(std::string_view name) const {
  for (const FlattenedEntry& e : flattened_) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

void MeshRoot::add_flattened(std::string name, layout::Layout layout) {
  assert(find_flattened(name) == nullptr);
  flattened_.push_back({std::move(name), std::move(layout)});
}

}  // namespace dtplan::mesh
