#pragma once
// MeshContext: what the redistribution planners need to know about a device mesh, computed once:
// dim sizes, the user-created flattened meshes (registered on the mesh's root, `_flatten`) and the
// dim sets they flatten, the process groups of every dim and flattened mesh reduced to their
// distinct node structures (cost::GroupTopology), DTensor's intra/inter-host split of the dims
// (MeshTopoInfo, docs/reference/placements.md §5.1), and a fingerprint that keys plan caches.
//
//   auto m = mesh::DeviceMesh::create({2, 2, 2}, {"A", "B", "C"}).value();
//   mesh::flatten(mesh::slice(m, {"A", "C"}).value());          // registers "A_C"
//   auto ctx = MeshContext::make(m, 8, "h100-dgx").value();
//   ctx.find_flattened(0b101) == 0;   // dims A and C -> the flattened mesh "A_C"
//
// A flattened mesh matches a dim set when its layout equals the coalesced layout of those dims
// (PyTorch's _get_flattened_mesh_by_layout, docs/reference/placements.md §4.3 step 4): non-adjacent
// dims work, and size-1 dims may be added to a set freely (they vanish in coalescing).

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "cost/group_topology.h"
#include "layout/layout.h"
#include "mesh/device_mesh.h"

namespace dtplan::redist {

// The process groups of one mesh dim or flattened mesh, as the cost models see them.
struct GroupSet {
  std::int64_t size = 1;                        // ranks per group
  std::vector<cost::GroupTopology> topologies;  // distinct, in first-seen group order
  bool inter_host = false;                      // DTensor's MeshTopoInfo rule
  bool operator==(const GroupSet&) const = default;
};

struct FlatMesh {
  std::string name;
  layout::Layout layout;   // its one (coalesced) dim layout
  std::uint32_t dims = 0;  // the fewest mesh dims it flattens (a bit mask); 0 if none matches
  GroupSet groups;
  bool operator==(const FlatMesh&) const = default;
};

// A dim set (>= 2 dims) with a flattened mesh: every one, ascending by mask (ndim <= 8 only).
struct FlatMatch {
  std::uint32_t dims = 0;
  int flattened = -1;  // index into MeshContext::flattened()
  bool operator==(const FlatMatch&) const = default;
};

class MeshContext {
 public:
  // @post error (kBadInput) for gpus_per_node < 1 or a group topology the ranks cannot form.
  static core::Result<MeshContext> make(const mesh::DeviceMesh& mesh, std::int64_t gpus_per_node,
                                        std::string hardware);

  [[nodiscard]] const mesh::DeviceMesh& mesh() const { return mesh_; }
  [[nodiscard]] int ndim() const { return static_cast<int>(sizes_.size()); }
  [[nodiscard]] std::span<const std::int64_t> sizes() const { return sizes_; }
  [[nodiscard]] std::int64_t world() const { return world_; }
  [[nodiscard]] std::int64_t gpus_per_node() const { return gpus_per_node_; }
  [[nodiscard]] const std::string& hardware() const { return hardware_; }

  // @pre 0 <= d < ndim().
  [[nodiscard]] const GroupSet& dim_groups(int d) const {
    return dims_[static_cast<std::size_t>(d)];
  }
  [[nodiscard]] std::span<const FlatMesh> flattened() const { return flattened_; }
  // The first flattened mesh (creation order) whose layout is that of the dims in `dims`
  // flattened, or -1. Named meshes only (PyTorch returns None without dim names).
  [[nodiscard]] int find_flattened(std::uint32_t dims) const;
  // Whether flattened mesh `flattened` flattens exactly the dims in `dims` (equal layouts).
  [[nodiscard]] bool flattens(int flattened, std::uint32_t dims) const;
  // The index of the flattened mesh called `name`, or -1.
  [[nodiscard]] int flattened_index(std::string_view name) const;
  // Every (dim set, flattened mesh) pair for meshes of at most 8 dims; empty otherwise.
  [[nodiscard]] std::span<const FlatMatch> flat_matches() const { return matches_; }

  // The groups a step on `dims` (one bit: that dim; several: the flattened mesh `flattened`).
  [[nodiscard]] const GroupSet& groups(std::uint32_t dims, int flattened) const;

  // "A" or "0" (no names): how messages name a mesh dim.
  [[nodiscard]] std::string dim_label(int d) const;
  // Identifies the mesh for caches: shape, names, rank map, dim layouts, flattened meshes (name
  // and layout), GPUs per node and hardware name. Equal keys plan alike.
  [[nodiscard]] const std::string& key() const { return key_; }

 private:
  MeshContext(mesh::DeviceMesh mesh) : mesh_(std::move(mesh)) {}

  mesh::DeviceMesh mesh_;
  std::vector<std::int64_t> sizes_;
  std::int64_t world_ = 1;
  std::int64_t gpus_per_node_ = 1;
  std::string hardware_;
  std::vector<GroupSet> dims_;
  std::vector<FlatMesh> flattened_;
  std::vector<FlatMatch> matches_;
  std::vector<int> match_of_mask_;  // ndim <= 8: flattened index per mask, -1 for none
  std::string key_;
};

}  // namespace dtplan::redist
