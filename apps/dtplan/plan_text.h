#pragma once
// Text shared by the subcommands that print redistribution plans (`redistribute`, `simulate`):
// mesh dims by name and the plan's warnings as "# warning" lines.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "redist/redist_plan.h"

namespace dtplan::cli {

// "dp,tp" (dim names) or "0,1" (a mesh without names).
std::string mesh_dims_text(const redist::MeshDescription& mesh, std::span<const std::int32_t> dims);

// One "# warning <reason> (mesh dims <dims>): <message>" line per warning.
std::string warning_lines(const redist::MeshDescription& mesh,
                          const std::vector<redist::Warning>& warnings);

}  // namespace dtplan::cli
