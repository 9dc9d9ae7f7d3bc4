#pragma once
// Shared by the subcommands that take a mesh on the command line (`mesh`, `redistribute`): the
// `--flatten DIMS[=NAME]` syntax, reading a mesh file, and the labels that make mesh errors name
// the flag or file field at fault.

#include <string>
#include <vector>

#include "core/result.h"
#include "mesh/mesh_io.h"

namespace dtplan::cli {

// "dp,tp" or "dp,tp=NAME". Errors name "--flatten <text>".
core::Result<mesh::FlattenSpec> parse_flatten_arg(const std::string& text);

// Appends the `--flatten` values to config.flatten, in order.
core::Status add_flatten_args(mesh::MeshConfig& config, const std::vector<std::string>& flags);

// Reads and parses a mesh file; an unreadable file is kBadInput naming `flag` and the path.
core::Result<mesh::MeshConfig> read_mesh_file(const std::string& path, const std::string& flag);

// Builds `config` whose first `file_flattens` flatten entries came from the mesh file `file`
// (empty: none) and the rest from the `--flatten` values `flags`; errors name the file field
// ("m.json: field 'flatten[0]'") or the flag ("--flatten dp,tp", `shape_flag` for the shape,
// "--names", "--ranks").
core::Result<mesh::LoadedMesh> build_mesh_arg(const mesh::MeshConfig& config,
                                              const std::string& file,
                                              const std::vector<std::string>& flags,
                                              const std::string& shape_flag = "--shape");

}  // namespace dtplan::cli
