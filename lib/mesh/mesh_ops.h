#pragma once
// The DeviceMesh operations that derive meshes: slicing by names, flatten (cached on the root),
// unflatten, the submeshes of a dim, and concatenation. None creates a rank map: every result
// indexes its root's rank map, so groups always count the whole root.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "mesh/device_mesh.h"

namespace dtplan::mesh {

// mesh[names]: the submesh of the named dims, in the given order. Valid names are the mesh's own
// and, only when `mesh` is the root, the root's flattened meshes (so names made by unflatten are
// not visible from the root, nor flattened names from a submesh). Names equal to the mesh's own
// return the mesh itself. Example: (dp,cp,tp) sliced by {"dp","tp"} has dims 2:4, 2:1 and rank 5
// sees [[0,1],[4,5]]. Checks, in order:
//   "Cannot slice a DeviceMesh without mesh_dim_names!";
//   "Invalid mesh_dim_names (...) specified. Valid mesh_dim_names are [...]." (unknown name);
//   "Invalid mesh_dim_names (...) specified. Mesh dim indices should be in ascending order."
//     (G2's rule: the coalesced strides of the chosen dims must not increase; so transposed or
//     interleaved names fail, while a non-contiguous flattened dim alone is fine, which G1 rejected
//     as NotImplementedError);
//   "Slicing overlapping dim_names (...) is not allowed." (e.g. ("dp_cp", "cp")).
core::Result<DeviceMesh> slice(const DeviceMesh& mesh, std::span<const std::string> names);

// mesh._flatten(name): one dim over all of the mesh's dims, layout coalesce(dims) (a nested mode
// when not contiguous), registered on the root under `name` (default: the names joined by "_").
// Examples on (dp,cp,tp) = (2,2,2): dp+cp -> 4:2; dp+tp -> ((2,2)):((4,1)) with groups
// [[0,1,4,5],[2,3,6,7]]; cp+tp -> 4:1. Checks, in order:
//   "Cannot flatten a DeviceMesh without mesh_dim_names!";
//   a 1-D mesh flattened under its own name is returned as is;
//   "{name} already exists for submesh of the DeviceMesh(...). The mesh_dim_names of submesh and
//     flattened mesh are (...). Please specify another valid mesh_dim_name." (a root dim name);
//   "Flatten mesh with mesh_dim_name {name} has been created before, Please specify another valid
//     mesh_dim_name." (the name is registered with another layout); the same layout returns the
//     registered mesh (no new group).
core::Result<DeviceMesh> flatten(const DeviceMesh& mesh, std::optional<std::string> name = {});

// The flattened meshes registered on mesh's root, in creation order (the order of their groups).
std::vector<DeviceMesh> flattened_meshes(const DeviceMesh& mesh);

// mesh._unflatten(dim, sizes, names): dim `dim` becomes len(sizes) dims, by composing its layout
// with the row-major sizes:suffix_product(sizes) and splicing the result in; names are spliced the
// same way. Example: (2,4) dp,tp unflattening tp into (2,2) a,b gives dims 2:4, 2:2, 2:1.
// Checks: "dim {d} specified in `_unflatten` is out of range {ndim}" (negative too), "dim {name}
// specified in `_unflatten` is not in (...)" (G2's fixed check; G1 had it inverted),
// "mesh_dim_names must have same length as mesh_sizes in _unflatten!", "The product of
// mesh_sizes=(...) is p, but the original dimension at dim=d has size s. These must be equal for
// unflatten to work correctly.", and, beyond PyTorch (which lets the clash through), "Each
// mesh_dim_name must be unique." when a new name repeats another. A dim whose layout cannot be
// split that way (composition fails, e.g. (3,2):(4,1) into (2,3)) is kUnsupported.
core::Result<DeviceMesh> unflatten(const DeviceMesh& mesh, std::int64_t dim,
                                   std::span<const std::int64_t> sizes,
                                   std::span<const std::string> names);
core::Result<DeviceMesh> unflatten(const DeviceMesh& mesh, std::string_view dim,
                                   std::span<const std::int64_t> sizes,
                                   std::span<const std::string> names);

// mesh._get_all_submeshes(name): one fresh 1-D root mesh named `name` per group of that dim, in
// group order. Example: (2,4) replicate,shard with "replicate" -> [0,4],[1,5],[2,6],[3,7].
core::Result<std::vector<DeviceMesh>> all_submeshes(const DeviceMesh& mesh, std::string_view name);

// _concatenate(meshes): their dims and names side by side, over the first mesh's root. No order
// check (as in PyTorch). Example: concatenate({m["dp"], m["tp"]}) == m for m = (dp,tp).
// Checks: "Cannot concatenate DeviceMeshes derived from different device meshs" (rank maps
// differ), "Cannot concatenate overlapping meshes: ..." (G2 orthogonality), and unique names.
core::Result<DeviceMesh> concatenate(std::span<const DeviceMesh> meshes);

}  // namespace dtplan::mesh
