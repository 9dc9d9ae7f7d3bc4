#include "mesh/mesh_ops.h"

#include <algorithm>

#include "core/checked.h"
#include "core/strings.h"
#include "layout/algebra.h"
#include "layout/layout_text.h"
#include "layout/overlap.h"
#include "mesh/py_text.h"

namespace dtplan::mesh {

using layout::Layout;

namespace {

// The flat modes of several dims side by side, as one layout.
Layout side_by_side(std::span<const Layout> dims) {
  std::vector<layout::Mode> modes;
  for (const Layout& d : dims) {
    for (const layout::Mode& m : layout::flat_modes(d)) modes.push_back(m);
  }
  return Layout::from_modes(modes).value();  // modes of one validated mesh: in the domain
}

bool contains(std::span<const std::string> names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

core::Result<DeviceMesh> slice(const DeviceMesh& mesh, std::span<const std::string> names) {
  if (!mesh.has_names()) {
    return core::Error::bad_input("Cannot slice a DeviceMesh without mesh_dim_names! (slicing " +
                                  mesh.repr() + " by " + py_tuple(names) + ")");
  }
  if (std::ranges::equal(names, mesh.names())) return mesh;
  std::vector<std::string> valid = mesh.names();
  if (mesh.is_root()) {
    for (const FlattenedEntry& e : mesh.root_record()->flattened()) valid.push_back(e.name);
  }
  auto invalid = [&](const std::string& why) {
    return core::Error::bad_input("Invalid mesh_dim_names " + py_tuple(names) + " specified. " +
                                  why);
  };
  if (names.empty()) return invalid("Valid mesh_dim_names are " + py_list(valid) + ".");
  std::vector<Layout> chosen;
  for (const std::string& name : names) {
    if (contains(mesh.names(), name)) {
      chosen.push_back(mesh.dim_layout(mesh.dim(name).value()));
    } else if (const FlattenedEntry* e = mesh.root_record()->find_flattened(name);
               e != nullptr && mesh.is_root()) {
      chosen.push_back(e->layout);
    } else {
      return invalid("Valid mesh_dim_names are " + py_list(valid) + ".");
    }
  }
  Layout together = side_by_side(chosen);
  if (!layout::is_sorted(together)) {
    return invalid("Mesh dim indices should be in ascending order.");
  }
  if (!layout::is_orthogonal(together)) {
    return core::Error::bad_input("Slicing overlapping dim_names " + py_tuple(names) +
                                  " is not allowed.");
  }
  return DeviceMesh::derive(mesh, std::move(chosen),
                            std::vector<std::string>(names.begin(), names.end()));
}

core::Result<DeviceMesh> flatten(const DeviceMesh& mesh, std::optional<std::string> name) {
  if (!mesh.has_names()) {
    return core::Error::bad_input("Cannot flatten a DeviceMesh without mesh_dim_names! (" +
                                  mesh.repr() + ")");
  }
  std::string n = name ? *name : core::join(mesh.names(), "_");
  if (n.empty()) return core::Error::bad_input("flatten: the mesh_dim_name must not be empty");
  if (mesh.ndim() == 1 && contains(mesh.names(), n)) return mesh;
  const MeshRoot& root = *mesh.root_record();
  if (contains(root.names(), n)) {
    return core::Error::bad_input(n + " already exists for submesh of the " + mesh.root().repr() +
                                  ". The mesh_dim_names of submesh and flattened mesh are " +
                                  py_tuple(root.names()) +
                                  ". Please specify another valid mesh_dim_name.");
  }
  Layout flat = layout::coalesce(side_by_side(mesh.dim_layouts()));
  if (const FlattenedEntry* e = root.find_flattened(n); e != nullptr && e->layout != flat) {
    return core::Error::bad_input(
        "Flatten mesh with mesh_dim_name " + n +
        " has been created before, Please specify another valid mesh_dim_name. (It flattens " +
        layout::to_string(e->layout) + ", not " + layout::to_string(flat) + ".)");
  }
  DTPLAN_TRY(DeviceMesh out, DeviceMesh::derive(mesh, {flat}, {n}));
  if (root.find_flattened(n) == nullptr) mesh.root_record()->add_flattened(n, flat);
  return out;
}

std::vector<DeviceMesh> flattened_meshes(const DeviceMesh& mesh) {
  std::vector<DeviceMesh> out;
  DeviceMesh root = mesh.root();
  for (const FlattenedEntry& e : mesh.root_record()->flattened()) {
    out.push_back(DeviceMesh::derive(root, {e.layout}, {e.name}).value());  // validated on entry
  }
  return out;
}

core::Result<DeviceMesh> unflatten(const DeviceMesh& mesh, std::int64_t dim,
                                   std::span<const std::int64_t> sizes,
                                   std::span<const std::string> names) {
  if (dim < 0 || dim >= mesh.ndim()) {
    return core::Error::bad_input("dim " + std::to_string(dim) +
                                  " specified in `_unflatten` is out of range " +
                                  std::to_string(mesh.ndim()));
  }
  if (!mesh.has_names()) {
    return core::Error::bad_input("Cannot unflatten a DeviceMesh without mesh_dim_names! (" +
                                  mesh.repr() + ")");
  }
  if (sizes.size() != names.size()) {
    return core::Error::bad_input(
        "mesh_dim_names must have same length as mesh_sizes in _unflatten! (got " +
        std::to_string(sizes.size()) + " sizes and " + std::to_string(names.size()) + " names)");
  }
  std::string sizes_text = py_tuple(sizes);
  if (sizes.empty() || std::ranges::any_of(sizes, [](std::int64_t s) { return s < 1; })) {
    return core::Error::bad_input("mesh_sizes=" + sizes_text +
                                  " in _unflatten: give at least one size, each at least 1");
  }
  MeshDim d = mesh_dim(static_cast<int>(dim));
  auto product = core::checked_product(sizes, "mesh_sizes=" + sizes_text);
  if (!product.ok() || *product != mesh.size(d)) {
    return core::Error::bad_input(
        "The product of mesh_sizes=" + sizes_text + " is " +
        (product.ok() ? std::to_string(*product) : "past 64-bit integers") +
        ", but the original dimension at dim=" + std::to_string(dim) + " has size " +
        std::to_string(mesh.size(d)) + ". These must be equal for unflatten to work correctly.");
  }
  Layout inner = Layout::row_major(sizes).value();  // its size equals the dim's
  auto split = layout::composition(mesh.dim_layout(d), inner);
  if (!split.ok()) {
    return core::Error::unsupported("cannot unflatten dim '" + mesh.dim_name(d) + "' (layout " +
                                    layout::to_string(mesh.dim_layout(d)) + ") into mesh_sizes=" +
                                    sizes_text + ": " + split.error().message);
  }
  std::vector<Layout> dims = mesh.dim_layouts();
  std::vector<std::string> all_names = mesh.names();
  dims.erase(dims.begin() + dim);
  all_names.erase(all_names.begin() + dim);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    dims.insert(dims.begin() + dim + static_cast<std::int64_t>(i),
                layout::mode(*split, static_cast<std::int64_t>(i)).value());
  }
  all_names.insert(all_names.begin() + dim, names.begin(), names.end());
  return DeviceMesh::derive(mesh, std::move(dims), std::move(all_names));
}

core::Result<DeviceMesh> unflatten(const DeviceMesh& mesh, std::string_view dim,
                                   std::span<const std::int64_t> sizes,
                                   std::span<const std::string> names) {
  auto it = std::find(mesh.names().begin(), mesh.names().end(), dim);
  if (it == mesh.names().end()) {
    return core::Error::bad_input("dim " + std::string(dim) +
                                  " specified in `_unflatten` is not in " +
                                  (mesh.has_names() ? py_tuple(mesh.names()) : "None"));
  }
  return unflatten(mesh, it - mesh.names().begin(), sizes, names);
}

core::Result<std::vector<DeviceMesh>> all_submeshes(const DeviceMesh& mesh, std::string_view name) {
  DTPLAN_TRY(MeshDim d, mesh.dim(name));
  layout::IntTensor groups = mesh.groups(d);
  std::vector<DeviceMesh> out;
  for (std::int64_t r = 0; r < layout::rows(groups); ++r) {
    auto row = layout::row(groups, r);
    DTPLAN_TRY(DeviceMesh sub, DeviceMesh::from_ranks({mesh.size(d)}, {row.begin(), row.end()},
                                                      {std::string(name)}));
    out.push_back(std::move(sub));
  }
  return out;
}

core::Result<DeviceMesh> concatenate(std::span<const DeviceMesh> meshes) {
  if (meshes.empty()) return core::Error::bad_input("Cannot concatenate an empty list of meshes");
  std::vector<Layout> dims;
  std::vector<std::string> names;
  std::string reprs;
  for (const DeviceMesh& m : meshes) {
    if (m.root_record() != meshes[0].root_record() &&
        !std::ranges::equal(m.rank_map(), meshes[0].rank_map())) {
      return core::Error::bad_input(
          "Cannot concatenate DeviceMeshes derived from different device meshs (" +
          meshes[0].repr() + " and " + m.repr() + " have different rank maps)");
    }
    if (m.has_names() != meshes[0].has_names()) {
      return core::Error::bad_input(
          "Cannot concatenate DeviceMeshes with and without mesh_dim_names");
    }
    dims.insert(dims.end(), m.dim_layouts().begin(), m.dim_layouts().end());
    names.insert(names.end(), m.names().begin(), m.names().end());
    reprs += (reprs.empty() ? "" : ", ") + m.repr();
  }
  if (!layout::is_orthogonal(side_by_side(dims))) {
    return core::Error::bad_input("Cannot concatenate overlapping meshes: " + reprs);
  }
  return DeviceMesh::derive(meshes[0], std::move(dims), std::move(names));
}

}  // namespace dtplan::mesh
