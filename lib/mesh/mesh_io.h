#pragma once
// Mesh files (configs/meshes/*.json) and the JSON form of meshes that `dtplan mesh --json` prints.
//
//   {"shape": [8, 8], "names": ["dp", "tp"], "flatten": [["dp", "tp"]], "hardware": "h100-dgx"}
//
// `names`, `flatten`, `hardware` and `ranks` (the mesh tensor in row-major order) are optional; a
// flatten entry is a list of dim names or {"dims": [...], "name": "x"}. Unknown fields are errors.

#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "mesh/device_mesh.h"

namespace dtplan::mesh {

// One flattened mesh to create: the root dims it spans and its name (empty: the default name,
// the dim names joined by "_").
struct FlattenSpec {
  std::vector<std::string> dims;
  std::string name;
  bool operator==(const FlattenSpec&) const = default;
};

struct MeshConfig {
  std::vector<std::int64_t> shape;
  std::vector<std::string> names;  // empty: no mesh_dim_names
  std::vector<FlattenSpec> flatten;
  std::string hardware;  // a hardware profile name; empty when absent
  std::optional<std::vector<std::int64_t>> ranks;
  bool operator==(const MeshConfig&) const = default;
};

// A mesh built from a config: the root and its flattened meshes, in the config's order.
struct LoadedMesh {
  MeshConfig config;
  DeviceMesh root;
  std::vector<DeviceMesh> flattened;
};

// Parses a mesh file's text. `source` (the path) starts every error, which also names the field:
// "configs/meshes/x.json: field 'shape': expected a non-empty list of integers".
core::Result<MeshConfig> parse_mesh_config(std::string_view json_text, std::string_view source);

// Names the input behind an error, given the config field ("shape", "names", "ranks" or
// "flatten") and, for "flatten", the entry's index. Files say "m.json: field 'flatten[0]'"; the
// CLI says "--flatten dp,tp".
using InputLabel = std::function<std::string(std::string_view field, std::size_t index)>;

// Builds the root mesh (from_ranks when `ranks` is given, else create) and flattens each entry
// in order, slicing the root by its dims first; mesh errors are prefixed with label(field, i).
core::Result<LoadedMesh> build_mesh(const MeshConfig& config, const InputLabel& label);
// The same with the labels of a mesh file named `source`.
core::Result<LoadedMesh> build_mesh(const MeshConfig& config, std::string_view source);

// Reads, parses and builds a mesh file. An unreadable file is kBadInput naming the path.
core::Result<LoadedMesh> load_mesh_file(const std::string& path);

// {"name", "size", "layout", "groups"} of dim d (layout: the dim's layout, e.g. "2:4").
nlohmann::ordered_json dim_json(const DeviceMesh& mesh, MeshDim d);

// {"shape", "names" (null without names), "layout", "dims": [dim_json...]}.
nlohmann::ordered_json mesh_json(const DeviceMesh& mesh);

// {"name", "size", "layout", "groups"} of a flattened (1-D) mesh; layout is the mesh layout, e.g.
// "((2,2)):((4,1))" for a non-contiguous flatten.
nlohmann::ordered_json flattened_json(const DeviceMesh& flattened);

}  // namespace dtplan::mesh
