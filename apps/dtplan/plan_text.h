#pragma once
// Text shared by the subcommands that print plans (`redistribute`, `simulate`, `plan`, `compare`,
// `explain`): the mesh in titles, mesh dims by name, byte sizes, placement lists and the plan's
// warnings as
// "# warning" lines.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "redist/redist_plan.h"
#include "redist/warning_text.h"

namespace dtplan::cli {

// mesh_dims_text ("dp,tp") and warning_lines ("# warning ..." lines) live in the library.
using redist::mesh_dims_text;
using redist::warning_lines;

// "h100-dgx (8 GPUs per node)": the mesh's hardware, in titles.
std::string hardware_text(const redist::MeshDescription& mesh);

// ", flattened dp_tp,cp_tp", or "" for a mesh without flattened meshes: the end of a mesh title.
std::string flattened_text(const redist::MeshDescription& mesh);

// Bytes in the largest binary unit they reach, two decimals: "1.50 GiB", "312.00 KiB", "96 B".
std::string bytes_text(std::int64_t bytes);

// "S(0),R": one placement per mesh dim, short forms, no shard order.
std::string placements_text(std::span<const placement::Placement> placements);

}  // namespace dtplan::cli
