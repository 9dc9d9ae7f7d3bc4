#pragma once
// A plan's warnings as text, shared by every report that prints a plan: mesh dims by name and one
// "# warning" line per warning.
//
//   warning_lines(mesh, plan.warnings) ==
//       "# warning divergent_replicas (mesh dims dp,tp): ...\n"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "redist/redist_plan.h"

namespace dtplan::redist {

// "dp,tp" (dim names) or "0,1" (a mesh without names).
std::string mesh_dims_text(const MeshDescription& mesh, std::span<const std::int32_t> dims);

// One "# warning <reason> (mesh dims <dims>): <message>" line per warning.
std::string warning_lines(const MeshDescription& mesh, const std::vector<Warning>& warnings);

}  // namespace dtplan::redist
