#include "redist/mesh_context.h"

#include <algorithm>
#include <bit>

#include "core/strings.h"
#include "layout/algebra.h"
#include "layout/int_tensor.h"
#include "layout/layout_text.h"
#include "mesh/mesh_ops.h"

namespace dtplan::redist {

namespace {

constexpr int kMaxTabulatedDims = 8;

// The layout of the dims in `mask` flattened: the coalesced side-by-side flat modes (as
// mesh::flatten computes it).
layout::Layout flattened_layout(const mesh::DeviceMesh& m, std::uint32_t mask) {
  std::vector<layout::Mode> modes;
  for (int d = 0; d < m.ndim(); ++d) {
    if (((mask >> d) & 1U) == 0) continue;
    for (const layout::Mode& mode : layout::flat_modes(m.dim_layout(mesh::mesh_dim(d)))) {
      modes.push_back(mode);
    }
  }
  return layout::coalesce(layout::Layout::from_modes(modes).value());  // modes of a valid mesh
}

core::Result<GroupSet> group_set(const layout::IntTensor& groups, std::int64_t gpus_per_node,
                                 const std::string& what) {
  GroupSet out;
  out.size = groups.shape.size() < 2 ? 1 : groups.shape[1];
  for (std::int64_t r = 0; r < layout::rows(groups); ++r) {
    DTPLAN_TRY(cost::GroupTopology topo,
               cost::group_topology(layout::row(groups, r), gpus_per_node, what));
    if (std::find(out.topologies.begin(), out.topologies.end(), topo) == out.topologies.end()) {
      out.topologies.push_back(topo);
    }
  }
  return out;
}

}  // namespace

core::Result<MeshContext> MeshContext::make(const mesh::DeviceMesh& mesh,
                                            std::int64_t gpus_per_node, std::string hardware) {
  if (gpus_per_node < 1) {
    return core::Error::bad_input("GPUs per node must be >= 1, got " +
                                  std::to_string(gpus_per_node));
  }
  MeshContext ctx(mesh);
  ctx.sizes_ = mesh.shape();
  ctx.world_ = mesh.size();
  ctx.gpus_per_node_ = gpus_per_node;
  ctx.hardware_ = std::move(hardware);
  const int ndim = mesh.ndim();
  for (int d = 0; d < ndim; ++d) {
    DTPLAN_TRY(GroupSet g, group_set(mesh.groups(mesh::mesh_dim(d)), gpus_per_node,
                                     "mesh dim " + ctx.dim_label(d)));
    ctx.dims_.push_back(std::move(g));
  }
  // DTensor's MeshTopoInfo: walking inner to outer, the first dim whose cumulative size exceeds
  // one host is inter-host, and so is every dim outside it.
  std::int64_t total = 1;
  bool inter = false;
  for (int d = ndim - 1; d >= 0; --d) {
    total = std::min<std::int64_t>(total * ctx.sizes_[static_cast<std::size_t>(d)],
                                   std::int64_t{1} << 40);
    inter = inter || total > gpus_per_node;
    ctx.dims_[static_cast<std::size_t>(d)].inter_host = inter;
  }
  // Flattened meshes exist only on named meshes.
  const std::vector<mesh::DeviceMesh> flats =
      mesh.has_names() ? mesh::flattened_meshes(mesh) : std::vector<mesh::DeviceMesh>{};
  for (const mesh::DeviceMesh& f : flats) {
    FlatMesh entry{f.names()[0], f.dim_layout(mesh::MeshDim{0}), 0, {}};
    DTPLAN_TRY(entry.groups, group_set(f.groups(mesh::MeshDim{0}), gpus_per_node,
                                       "flattened mesh " + entry.name));
    ctx.flattened_.push_back(std::move(entry));
  }
  if (ndim <= kMaxTabulatedDims) {
    ctx.match_of_mask_.assign(std::size_t{1} << ndim, -1);
    if (!flats.empty()) {
      for (std::uint32_t mask = 1; mask < (std::uint32_t{1} << ndim); ++mask) {
        const layout::Layout l = flattened_layout(mesh, mask);
        for (std::size_t i = 0; i < flats.size(); ++i) {
          if (flats[i].dim_layout(mesh::MeshDim{0}) != l) continue;
          ctx.match_of_mask_[mask] = static_cast<int>(i);
          FlatMesh& f = ctx.flattened_[i];
          const bool fewer = f.dims == 0 || std::popcount(mask) < std::popcount(f.dims);
          if (fewer) f.dims = mask;
          if (std::popcount(mask) >= 2) ctx.matches_.push_back({mask, static_cast<int>(i)});
          break;
        }
      }
    }
  } else {
    for (std::size_t i = 0; i < flats.size(); ++i) {
      // Beyond 8 dims the candidate set is the dims of size > 1 whose group through rank-map
      // index 0 lies inside the flattened group through 0; it is kept if the layouts agree.
      const layout::Layout& fl = flats[i].dim_layout(mesh::MeshDim{0});
      std::vector<std::int64_t> inside;
      for (std::int64_t k = 0; k < layout::size(fl); ++k) inside.push_back(layout::value_at(fl, k));
      std::sort(inside.begin(), inside.end());
      std::uint32_t mask = 0;
      for (int d = 0; d < ndim; ++d) {
        const layout::Layout& dl = mesh.dim_layout(mesh::mesh_dim(d));
        bool all = layout::size(dl) > 1;
        for (std::int64_t k = 0; all && k < layout::size(dl); ++k) {
          all = std::binary_search(inside.begin(), inside.end(), layout::value_at(dl, k));
        }
        if (all) mask |= 1U << d;
      }
      if (mask != 0 && flattened_layout(mesh, mask) == fl) ctx.flattened_[i].dims = mask;
    }
  }
  for (FlatMesh& f : ctx.flattened_) {
    f.groups.inter_host = false;
    for (int d = 0; d < ndim; ++d) {
      if ((f.dims >> d) & 1U)
        f.groups.inter_host |= ctx.dims_[static_cast<std::size_t>(d)].inter_host;
    }
    if (f.dims == 0) f.groups.inter_host = f.groups.size > gpus_per_node;
  }
  // The fingerprint.
  std::string key = "shape=" + core::format_int_list(ctx.sizes_) + ";names=";
  for (const std::string& n : mesh.names()) key += n + ",";
  key += ";dims=";
  for (const layout::Layout& l : mesh.dim_layouts()) key += layout::to_string(l) + ",";
  key += ";ranks=" + core::format_int_list(mesh.rank_map()) + ";flat=";
  for (const mesh::DeviceMesh& f : flats) {
    key += f.names()[0] + ":" + layout::to_string(f.dim_layout(mesh::MeshDim{0})) + ",";
  }
  key += ";gpn=" + std::to_string(gpus_per_node) + ";hw=" + ctx.hardware_;
  ctx.key_ = std::move(key);
  return ctx;
}

int MeshContext::find_flattened(std::uint32_t dims) const {
  if (!match_of_mask_.empty()) return dims < match_of_mask_.size() ? match_of_mask_[dims] : -1;
  if (flattened_.empty()) return -1;
  const layout::Layout l = flattened_layout(mesh_, dims);
  const std::vector<mesh::DeviceMesh> flats = mesh::flattened_meshes(mesh_);
  for (std::size_t i = 0; i < flats.size(); ++i) {
    if (flats[i].dim_layout(mesh::MeshDim{0}) == l) return static_cast<int>(i);
  }
  return -1;
}

bool MeshContext::flattens(int flattened, std::uint32_t dims) const {
  return flattened >= 0 && static_cast<std::size_t>(flattened) < flattened_.size() &&
         flattened_[static_cast<std::size_t>(flattened)].layout == flattened_layout(mesh_, dims);
}

int MeshContext::flattened_index(std::string_view name) const {
  for (std::size_t i = 0; i < flattened_.size(); ++i) {
    if (flattened_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

const GroupSet& MeshContext::groups(std::uint32_t dims, int flattened) const {
  if (flattened >= 0) return flattened_[static_cast<std::size_t>(flattened)].groups;
  return dims_[static_cast<std::size_t>(std::countr_zero(dims))];
}

std::string MeshContext::dim_label(int d) const {
  return mesh_.has_names() ? mesh_.names()[static_cast<std::size_t>(d)] : std::to_string(d);
}

}  // namespace dtplan::redist
