#pragma once
// Shipped configurations by name: `--model llama3-8b`, `--mesh 8x8` (configs/models/NAME.json,
// configs/meshes/NAME.json in the folders cost::config_search lists: $DTPLAN_CONFIG_DIR, then
// the configs folders above the executable and above the working directory), inline meshes
// (`--mesh dp=8,tp=8`), and what `dtplan list` prints. A value with a '/' or ending in ".json"
// is a file path as before.
//
//   config_file_arg(ConfigKind::kModel, "llama3-8b", "--model")  //
//   ".../configs/models/llama3-8b.json" read_mesh_arg("dp=8,tp=8", "--mesh")  // MeshConfig{shape
//   [8, 8], names [dp, tp]}

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "cost/hardware_io.h"
#include "mesh/mesh_io.h"

namespace dtplan::cli {

enum class ConfigKind : std::uint8_t { kModel, kMesh, kHardware };

// The folders names are looked up in (cost::config_search from this executable's path).
cost::ConfigSearch shipped_config_search();

// "models", "meshes" or "hardware": the folder under configs/ and the word `dtplan list` takes.
std::string_view config_folder(ConfigKind kind);

// The file `value` names: itself when it is a path, else the shipped NAME.json of `kind`.
// An unknown name is kBadInput naming `flag`, the nearest name and the known ones:
// "--model: no model 'llama3-8c'; did you mean 'llama3-8b'? (known: llama3-405b, ...)".
core::Result<std::string> config_file_arg(ConfigKind kind, std::string_view value,
                                          std::string_view flag);

// A mesh from --mesh: a file, a shipped name, or inline `NAME=SIZE,...` (dims in order, e.g.
// "dp_shard=8,tp=8"). Inline errors name `flag` and the text.
core::Result<mesh::MeshConfig> read_mesh_arg(const std::string& value, const std::string& flag);

// The file a --mesh value reads ("" for an inline mesh): the label of mesh file errors.
std::string mesh_file_label(const std::string& value);

// One shipped configuration: its name and a one-line description (the file's "description" or
// "comment"; for a mesh without one, its shape, dim names and hardware).
struct ConfigEntry {
  std::string name;
  std::string description;
};

// The shipped configurations of `kind`, sorted by name; a file that does not parse is listed
// with the reason instead of a description.
std::vector<ConfigEntry> list_configs(ConfigKind kind);

}  // namespace dtplan::cli
