#include "plan_text.h"

#include "core/strings.h"

namespace dtplan::cli {

std::string mesh_dims_text(const redist::MeshDescription& mesh,
                           std::span<const std::int32_t> dims) {
  std::vector<std::string> out;
  for (std::int32_t d : dims) {
    out.push_back(mesh.names.empty() ? std::to_string(d) : mesh.names[static_cast<std::size_t>(d)]);
  }
  return core::join(out, ",");
}

std::string warning_lines(const redist::MeshDescription& mesh,
                          const std::vector<redist::Warning>& warnings) {
  std::string out;
  for (const redist::Warning& w : warnings) {
    out += "# warning " + std::string(redist::warning_reason_name(w.reason)) + " (mesh dims " +
           mesh_dims_text(mesh, w.mesh_dims) + "): " + w.message + "\n";
  }
  return out;
}

}  // namespace dtplan::cli
