#pragma once
// MeshRoot: the state every mesh derived from one root mesh shares, as PyTorch's submeshes share
// their root: the rank map (the root's ranks in row-major order, which layout values index), the
// root's dims and names, and the registry of flattened meshes (`_flatten_mapping`). DeviceMesh
// holds it through a shared_ptr, so a flatten done through any submesh is seen by all of them.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/limits.h"
#include "core/result.h"
#include "layout/layout.h"

namespace dtplan::mesh {

// The most ranks a mesh may have (listing every group then stays in the tens of MiB).
inline constexpr std::int64_t kMaxRanks = core::kMaxRanks;

// A flattened mesh registered on the root: its name and its one (coalesced) dim layout.
struct FlattenedEntry {
  std::string name;
  layout::Layout layout;
  bool operator==(const FlattenedEntry&) const = default;
};

class MeshRoot {
 public:
  // Example: create({0,4,1,5,2,6,3,7}, dims (4:2, 2:1), {"a","b"}).
  // @post error (kBadInput) when a rank is negative or appears twice (PyTorch only fails later,
  //   when the repeated rank computes its coordinate: "rank_coords.size(0) must be 0 or 1, got 2"),
  //   and (kUnsupported) when the rank map exceeds kMaxRanks.
  static core::Result<std::shared_ptr<MeshRoot>> create(std::vector<std::int64_t> rank_map,
                                                        std::vector<layout::Layout> dims,
                                                        std::vector<std::string> names);

  [[nodiscard]] std::span<const std::int64_t> rank_map() const { return rank_map_; }
  [[nodiscard]] const std::vector<layout::Layout>& dims() const { return dims_; }
  [[nodiscard]] const std::vector<std::string>& names() const { return names_; }

  // The position of `rank` in the rank map, if present. O(log n).
  [[nodiscard]] std::optional<std::int64_t> index_of(std::int64_t rank) const;

  // The flattened meshes in the order they were created (the order their groups are created).
  [[nodiscard]] const std::vector<FlattenedEntry>& flattened() const { return flattened_; }
  [[nodiscard]] const FlattenedEntry* find_flattened(std::string_view name) const;
  // @pre find_flattened(name) == nullptr.
  void add_flattened(std::string name, layout::Layout layout);

 private:
  MeshRoot() = default;
  std::vector<std::int64_t> rank_map_;
  std::vector<std::pair<std::int64_t, std::int64_t>> by_rank_;  // (rank, index), sorted
  std::vector<layout::Layout> dims_;
  std::vector<std::string> names_;
  std::vector<FlattenedEntry> flattened_;
};

}  // namespace dtplan::mesh
