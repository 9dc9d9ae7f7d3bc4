#include "mesh/device_mesh.h"

#include <algorithm>
#include <cassert>

#include "core/checked.h"
#include "core/strings.h"
#include "layout/algebra.h"
#include "layout/layout_text.h"
#include "layout/overlap.h"
#include "layout/ranks.h"
#include "mesh/py_text.h"

namespace dtplan::mesh {

using layout::Layout;

namespace {

// PyTorch's init_device_mesh name checks, in its order, after dtplan's own: no control characters
// (names print in one-line tables and errors).
core::Status check_names(const std::vector<std::string>& names, std::size_t ndim) {
  for (const std::string& name : names) {
    if (auto c = core::find_control_char(name)) {
      return core::Error::bad_input("mesh_dim_name '" + core::escape_controls(name) +
                                    "' contains the control character " +
                                    core::code_point_name(*c));
    }
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    for (std::size_t j = i + 1; j < names.size(); ++j) {
      if (names[i] == names[j]) {
        return core::Error::bad_input(
            "Each mesh_dim_name must be unique. Found repeated mesh_dim_name '" + names[i] +
            "' in mesh_dim_names " + py_tuple(names));
      }
    }
  }
  if (!names.empty() && names.size() != ndim) {
    return core::Error::bad_input(
        "mesh_shape and mesh_dim_names should have same length! Found len(mesh_dim_names): " +
        std::to_string(names.size()) + " and len(mesh_shape):" + std::to_string(ndim) +
        ". (mesh_dim_names " + py_tuple(names) + ")");
  }
  return {};
}

core::Status check_shape(const std::vector<std::int64_t>& shape) {
  if (shape.empty()) return core::Error::bad_input("mesh_shape () must have at least one dim");
  if (shape.size() > static_cast<std::size_t>(kMaxMeshDims)) {
    return core::Error::unsupported("mesh_shape has " + std::to_string(shape.size()) +
                                    " dims; at most " + std::to_string(kMaxMeshDims) +
                                    " are supported" + core::limit_note("kMaxMeshDims"));
  }
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 1) {
      return core::Error::bad_input("mesh_shape " + py_tuple(std::span(shape)) + ": dim " +
                                    std::to_string(i) + " has size " + std::to_string(shape[i]) +
                                    "; sizes must be at least 1");
    }
  }
  auto n = core::checked_product(shape, "mesh_shape " + py_tuple(std::span(shape)) + " ranks");
  if (!n.ok() || *n > kMaxRanks) {
    return core::Error::unsupported(
        "mesh_shape " + py_tuple(std::span(shape)) + " has more than the supported maximum of " +
        std::to_string(kMaxRanks) + " ranks" + core::limit_note("kMaxRanks"));
  }
  return {};
}

// The dims together must be orthogonal and tile whole copies of the rank map.
core::Status check_layout(const std::vector<Layout>& dims, std::int64_t w) {
  std::vector<layout::Mode> modes;
  for (const Layout& d : dims) {
    for (const layout::Mode& m : layout::flat_modes(d)) modes.push_back(m);
  }
  DTPLAN_TRY(Layout whole, Layout::from_modes(modes));
  if (!layout::is_orthogonal(whole)) {
    return core::Error::bad_input(
        "Please use a non-overlapping layout when creating a DeviceMesh. (dims " +
        layout::to_string(whole) + " reach some rank-map index twice or do not stack)");
  }
  if (layout::cosize(whole) > w) {
    return core::Error::bad_input("The rank map contains " + std::to_string(w) +
                                  " element, which isn't large enough for layout " +
                                  layout::to_string(whole));
  }
  std::int64_t extent = 1;
  for (const layout::Mode& m : layout::flat_modes(layout::coalesce(whole))) {
    extent = std::max(extent, m.size * m.stride);
  }
  if (w % extent != 0) {
    return core::Error::bad_input("layout " + layout::to_string(whole) +
                                  " does not tile the rank map of " + std::to_string(w) +
                                  " elements: its copies span " + std::to_string(extent) +
                                  " indices each");
  }
  return {};
}

// The dims coalesced, once the names, the dim count and the layout over w indices are valid.
core::Result<std::vector<Layout>> checked_dims(std::vector<Layout> dims,
                                               const std::vector<std::string>& names,
                                               std::int64_t w) {
  DTPLAN_CHECK(check_names(names, dims.size()));
  if (dims.empty() || dims.size() > static_cast<std::size_t>(kMaxMeshDims)) {
    return core::Error::bad_input("a mesh needs 1 to " + std::to_string(kMaxMeshDims) +
                                  " dims, got " + std::to_string(dims.size()));
  }
  for (Layout& d : dims) d = layout::coalesce(d);
  DTPLAN_CHECK(check_layout(dims, w));
  return dims;
}

}  // namespace

DeviceMesh::DeviceMesh(std::shared_ptr<MeshRoot> root, std::vector<Layout> dims,
                       std::vector<std::string> names, bool is_root)
    : root_(std::move(root)), dims_(std::move(dims)), names_(std::move(names)), is_root_(is_root) {
  for (const Layout& d : dims_) modes_.push_back(layout::flat_modes(d));
}

core::Result<DeviceMesh> DeviceMesh::create(std::vector<std::int64_t> shape,
                                            std::vector<std::string> names) {
  DTPLAN_CHECK(check_names(names, shape.size()));
  DTPLAN_CHECK(check_shape(shape));
  std::vector<std::int64_t> ranks(static_cast<std::size_t>(
      core::checked_product(shape, "mesh_shape").value()));  // bounded by check_shape
  for (std::size_t i = 0; i < ranks.size(); ++i) ranks[i] = static_cast<std::int64_t>(i);
  return from_ranks(std::move(shape), std::move(ranks), std::move(names));
}

core::Result<DeviceMesh> DeviceMesh::from_ranks(std::vector<std::int64_t> shape,
                                                std::vector<std::int64_t> ranks,
                                                std::vector<std::string> names) {
  DTPLAN_CHECK(check_names(names, shape.size()));
  DTPLAN_CHECK(check_shape(shape));
  Layout row_major = Layout::row_major(shape).value();  // bounded by check_shape
  auto n = static_cast<std::int64_t>(ranks.size());
  if (n < layout::size(row_major)) {
    return core::Error::bad_input("The rank map contains " + std::to_string(n) +
                                  " element, which isn't large enough for layout " +
                                  layout::to_string(row_major));
  }
  if (n > layout::size(row_major)) {
    return core::Error::bad_input("mesh ranks: " + std::to_string(n) +
                                  " ranks given for mesh_shape " + py_tuple(std::span(shape)) +
                                  " of " + std::to_string(layout::size(row_major)) +
                                  " positions; give exactly one rank per position");
  }
  std::vector<Layout> dims;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    dims.push_back(layout::mode(row_major, static_cast<std::int64_t>(i)).value());
  }
  return from_layout(std::move(ranks), std::move(dims), std::move(names));
}

core::Result<DeviceMesh> DeviceMesh::from_layout(std::vector<std::int64_t> rank_map,
                                                 std::vector<Layout> dims,
                                                 std::vector<std::string> names) {
  DTPLAN_TRY(dims,
             checked_dims(std::move(dims), names, static_cast<std::int64_t>(rank_map.size())));
  DTPLAN_TRY(std::shared_ptr<MeshRoot> root, MeshRoot::create(std::move(rank_map), dims, names));
  return DeviceMesh(std::move(root), std::move(dims), std::move(names), true);
}

core::Result<DeviceMesh> DeviceMesh::derive(const DeviceMesh& parent, std::vector<Layout> dims,
                                            std::vector<std::string> names) {
  DTPLAN_TRY(dims, checked_dims(std::move(dims), names,
                                static_cast<std::int64_t>(parent.rank_map().size())));
  return DeviceMesh(parent.root_, std::move(dims), std::move(names), false);
}

std::int64_t DeviceMesh::size() const {
  std::int64_t n = 1;
  for (const Layout& d : dims_) n *= layout::size(d);
  return n;
}

std::int64_t DeviceMesh::size(MeshDim d) const { return layout::size(dim_layout(d)); }

std::vector<std::int64_t> DeviceMesh::shape() const {
  std::vector<std::int64_t> out;
  for (const Layout& d : dims_) out.push_back(layout::size(d));
  return out;
}

std::string DeviceMesh::dim_name(MeshDim d) const {
  assert(index(d) >= 0 && index(d) < ndim());
  return has_names() ? names_[static_cast<std::size_t>(index(d))]
                     : "dim_" + std::to_string(index(d));
}

const Layout& DeviceMesh::dim_layout(MeshDim d) const {
  assert(index(d) >= 0 && index(d) < ndim());
  return dims_[static_cast<std::size_t>(index(d))];
}

Layout DeviceMesh::layout() const {
  if (dims_.size() == 1 && dims_[0].shape().is_leaf()) return dims_[0];
  std::vector<Layout> nested;
  for (const Layout& d : dims_) nested.push_back(layout::nest(d));
  return layout::concat(nested).value();  // the same values as the validated dims
}

DeviceMesh DeviceMesh::root() const {
  if (is_root_) return *this;
  return DeviceMesh(root_, root_->dims(), root_->names(), true);
}

core::Result<MeshDim> DeviceMesh::dim(std::string_view name) const {
  if (!has_names()) {
    return core::Error::bad_input("No `mesh_dim_names` found. (looking up '" + std::string(name) +
                                  "' in " + repr() + ")");
  }
  for (int i = 0; i < ndim(); ++i) {
    if (names_[static_cast<std::size_t>(i)] == name) return mesh_dim(i);
  }
  return core::Error::bad_input(
      "Mesh dimension '" + std::string(name) +
      "' does not exist. Available mesh dimensions are: mesh_dim_names=" + py_tuple(names_));
}

core::Result<MeshDim> DeviceMesh::dim(std::int64_t i) const {
  if (i < -ndim() || i >= ndim()) {
    return core::Error::bad_input(
        "mesh dim " + std::to_string(i) + " is out of range for a mesh with " +
        std::to_string(ndim()) + " dimensions. Expected dim to be in range [" +
        std::to_string(-ndim()) + ", " + std::to_string(ndim() - 1) + "].");
  }
  return mesh_dim(static_cast<int>(i < 0 ? i + ndim() : i));
}

layout::IntTensor DeviceMesh::groups(MeshDim d) const {
  return layout::remap_to_tensor(layout::nest(dim_layout(d)), rank_map()).value();  // validated
}

std::optional<std::vector<std::int64_t>> DeviceMesh::coordinate(std::int64_t rank) const {
  std::optional<std::int64_t> p = root_->index_of(rank);
  if (!p) return std::nullopt;
  // The dims and their complement tile the rank map exactly and orthogonally, so each flat mode's
  // coordinate is a digit of the index: (p / stride) % size.
  std::vector<std::int64_t> coord;
  coord.reserve(modes_.size());
  for (const std::vector<layout::Mode>& modes : modes_) {
    std::int64_t c = 0;
    for (const layout::Mode& m : modes) c = c * m.size + (*p / m.stride) % m.size;
    coord.push_back(c);
  }
  return coord;
}

core::Result<std::int64_t> DeviceMesh::local_rank(std::int64_t rank,
                                                  std::optional<MeshDim> d) const {
  if (!d && ndim() > 1) {
    return core::Error::bad_input(
        "Optional kwarg `mesh_dim` needs to be specified when device_mesh.ndim > 1. (rank " +
        std::to_string(rank) + " of " + repr() + ")");
  }
  MeshDim dim = d.value_or(MeshDim{0});
  if (index(dim) < 0 || index(dim) >= ndim()) {
    return core::Error::bad_input("mesh dim " + std::to_string(index(dim)) + " is out of range");
  }
  auto coord = coordinate(rank);
  if (!coord) {
    return core::Error::bad_input("rank " + std::to_string(rank) + " is not in " + repr());
  }
  return (*coord)[static_cast<std::size_t>(index(dim))];
}

std::int64_t DeviceMesh::copies() const {
  return static_cast<std::int64_t>(rank_map().size()) / size();
}

core::Result<layout::IntTensor> DeviceMesh::mesh_tensor(std::int64_t rank) const {
  Layout whole = layout();
  std::int64_t offset = 0;
  if (copies() > 1) {
    std::optional<std::int64_t> p = root_->index_of(rank);
    if (!p) {
      return core::Error::bad_input(
          "In order to get the mesh Tensor of a DeviceMesh it needs to either have all its "
          "original dimensions (e.g., no slicing) or it needs to contain the local rank (rank " +
          std::to_string(rank) + ", " + repr() + ")");
    }
    Layout c = layout::complement(whole, static_cast<std::int64_t>(rank_map().size())).value();
    for (const layout::Mode& m : layout::flat_modes(c))
      offset += (*p / m.stride) % m.size * m.stride;
  }
  layout::IntTensor out;
  out.shape = shape();
  out.values = layout::all_ranks_from_zero(whole);
  for (std::int64_t& v : out.values) v = rank_map()[static_cast<std::size_t>(offset + v)];
  return out;
}

std::string DeviceMesh::repr() const {
  std::string sizes;
  std::string strides;
  for (int i = 0; i < ndim(); ++i) {
    const Layout& d = dims_[static_cast<std::size_t>(i)];
    if (i > 0) {
      sizes += ", ";
      strides += ", ";
    }
    sizes += (has_names() ? names_[static_cast<std::size_t>(i)] + "=" : "") +
             std::to_string(layout::size(d));
    std::vector<std::int64_t> ds;
    for (const layout::Mode& m : layout::flat_modes(d)) ds.push_back(m.stride);
    strides += ds.size() == 1 ? std::to_string(ds[0]) : py_tuple(std::span(ds));
  }
  if (ndim() == 1) {
    sizes += ",";
    strides += ",";
  }
  return "DeviceMesh((" + sizes + "), stride=(" + strides + "))";
}

bool DeviceMesh::operator==(const DeviceMesh& other) const {
  if (dims_ != other.dims_ || names_ != other.names_) return false;
  if (root_ == other.root_) return true;
  return std::ranges::equal(rank_map(), other.rank_map());
}

}  // namespace dtplan::mesh
