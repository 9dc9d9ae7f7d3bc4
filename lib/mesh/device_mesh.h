#pragma once
// DeviceMesh: PyTorch's DeviceMesh on CuTe-style layouts (G1 semantics, each dim normalised by
// coalescing as G2 does). A mesh is a list of dim layouts whose values index the root's rank map;
// process groups, coordinates and the mesh tensor a rank sees are all computed from those two.
// Mesh handles are cheap to copy: submeshes share their root's MeshRoot (rank map, flatten map).
// Slicing, flatten, unflatten and concatenation live in mesh_ops.h.
//
//   auto mesh = DeviceMesh::create({2, 4}, {"dp", "tp"}).value();   // layout (2,4):(4,1)
//   mesh.groups(MeshDim{0});   // [[0,4],[1,5],[2,6],[3,7]]
//   mesh.coordinate(6);        // [1,2]

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "layout/int_tensor.h"
#include "layout/layout.h"
#include "mesh/mesh_dim.h"
#include "mesh/mesh_root.h"

namespace dtplan::mesh {

class DeviceMesh {
 public:
  // init_device_mesh(shape, names): layout shape:suffix_product(shape), ranks 0..numel-1. `names`
  // may be empty (no mesh_dim_names). Checks, in PyTorch's order: "Each mesh_dim_name must be
  // unique.", "mesh_shape and mesh_dim_names should have same length!", then the shape itself
  // (at least one dim, at most kMaxMeshDims, sizes >= 1, at most kMaxRanks ranks).
  static core::Result<DeviceMesh> create(std::vector<std::int64_t> shape,
                                         std::vector<std::string> names);

  // DeviceMesh(mesh_tensor, names): `ranks` is the mesh tensor of `shape` in row-major order, of
  // any values in any order (e.g. shape {2,2}, ranks {4,5,6,7}). Besides create()'s checks:
  // "The rank map contains n element, which isn't large enough for layout L" when too few ranks,
  // an error when too many, and the MeshRoot checks (negative or repeated ranks).
  static core::Result<DeviceMesh> from_ranks(std::vector<std::int64_t> shape,
                                             std::vector<std::int64_t> ranks,
                                             std::vector<std::string> names);

  // The private `_layout`/`_rank_map` path: explicit dim layouts over a rank map, a new root.
  // Example: from_layout({4,5,6,7}, {2:2, 2:1}, {"dp","tp"}).
  // @post error "Please use a non-overlapping layout when creating a DeviceMesh." unless the
  //   dims together are orthogonal (G2; G1 only checks injectivity, which lets through layouts
  //   such as (3,2):(2,3) that have no complement and hence no process groups); "The rank map
  //   contains n element, ..." when the rank map is smaller than the layout's cosize; an error
  //   when whole copies of the layout do not tile the rank map.
  static core::Result<DeviceMesh> from_layout(std::vector<std::int64_t> rank_map,
                                              std::vector<layout::Layout> dims,
                                              std::vector<std::string> names);

  // A non-root mesh over `parent`'s root (what slicing, flatten, unflatten and concatenation
  // build): each dim is coalesced; the same layout checks as from_layout.
  static core::Result<DeviceMesh> derive(const DeviceMesh& parent, std::vector<layout::Layout> dims,
                                         std::vector<std::string> names);

  [[nodiscard]] int ndim() const { return static_cast<int>(dims_.size()); }
  [[nodiscard]] std::int64_t size() const;           // number of ranks in one copy
  [[nodiscard]] std::int64_t size(MeshDim d) const;  // @pre d < ndim()
  [[nodiscard]] std::vector<std::int64_t> shape() const;
  [[nodiscard]] bool has_names() const { return !names_.empty(); }
  [[nodiscard]] const std::vector<std::string>& names() const { return names_; }
  // The dim's name, or "dim_<d>" without names (the suffix of PyTorch's "mesh_<name>" groups).
  [[nodiscard]] std::string dim_name(MeshDim d) const;

  // The dim's layout: coalesced, a scalar `s:d` or a flat tuple for a non-contiguous dim.
  [[nodiscard]] const layout::Layout& dim_layout(MeshDim d) const;
  [[nodiscard]] const std::vector<layout::Layout>& dim_layouts() const { return dims_; }
  // The mesh layout: one top-level mode per dim (a multi-mode dim nested), or the dim itself for a
  // 1-D mesh of one flat mode. Examples: (2,2,2):(4,2,1); 4:2; ((2,2)):((4,1)).
  [[nodiscard]] layout::Layout layout() const;

  [[nodiscard]] std::span<const std::int64_t> rank_map() const { return root_->rank_map(); }
  [[nodiscard]] bool is_root() const { return is_root_; }
  // The root this mesh derives from (itself for a root).
  [[nodiscard]] DeviceMesh root() const;
  [[nodiscard]] const std::shared_ptr<MeshRoot>& root_record() const { return root_; }

  // The dim called `name`: "Mesh dimension 'x' does not exist. Available mesh dimensions are:
  // mesh_dim_names=(...)", or "No `mesh_dim_names` found." without names.
  [[nodiscard]] core::Result<MeshDim> dim(std::string_view name) const;
  // A checked index, Python negatives allowed. Example: dim(-1) is the last dim.
  [[nodiscard]] core::Result<MeshDim> dim(std::int64_t index) const;

  // Every process group of dim d, in the order every rank creates them: one row per complement
  // offset (ascending rank-map index of the first member), members in coordinate order along d,
  // counted over the whole root rank map. Example: dp of (2,4) -> [[0,4],[1,5],[2,6],[3,7]].
  // @post a [rank_map().size() / size(d), size(d)] tensor holding each rank map entry once.
  [[nodiscard]] layout::IntTensor groups(MeshDim d) const;

  // The coordinate of `rank` in the copy of the mesh it belongs to, or nullopt when the rank map
  // does not hold it. Example: rank 6 of (2,4) -> [1,2]. O(ndim + log n).
  [[nodiscard]] std::optional<std::vector<std::int64_t>> coordinate(std::int64_t rank) const;

  // The rank's position in its group of dim d (coordinate[d]); `d` may be omitted on a 1-D mesh.
  // @post error "Optional kwarg `mesh_dim` needs to be specified when device_mesh.ndim > 1." when
  //   omitted on a larger mesh; an error naming the rank when the mesh does not hold it.
  [[nodiscard]] core::Result<std::int64_t> local_rank(std::int64_t rank,
                                                      std::optional<MeshDim> d) const;

  // The `mesh` tensor `rank` sees, of shape shape(): the whole mesh when there is one copy of it
  // (even for a non-member), else the copy holding the rank.
  // @post error "In order to get the mesh Tensor of a DeviceMesh it needs to either have all its
  //   original dimensions (e.g., no slicing) or it needs to contain the local rank" otherwise.
  [[nodiscard]] core::Result<layout::IntTensor> mesh_tensor(std::int64_t rank) const;

  // Number of copies of this mesh in the rank map (1 for a root or any mesh covering it).
  [[nodiscard]] std::int64_t copies() const;

  // PyTorch's repr without the device: DeviceMesh((dp=2, tp=4), stride=(4, 1)).
  [[nodiscard]] std::string repr() const;

  // PyTorch's equality: equal rank maps (by value), dim layouts and names.
  bool operator==(const DeviceMesh& other) const;

 private:
  DeviceMesh(std::shared_ptr<MeshRoot> root, std::vector<layout::Layout> dims,
             std::vector<std::string> names, bool is_root);

  std::shared_ptr<MeshRoot> root_;
  std::vector<layout::Layout> dims_;
  std::vector<std::vector<layout::Mode>> modes_;  // flat_modes of each dim, for coordinate()
  std::vector<std::string> names_;
  bool is_root_ = true;
};

}  // namespace dtplan::mesh
