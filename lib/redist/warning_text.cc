#include "redist/warning_text.h"

#include "core/strings.h"

namespace dtplan::redist {

std::string mesh_dims_text(const MeshDescription& mesh, std::span<const std::int32_t> dims) {
  std::vector<std::string> out;
  for (std::int32_t d : dims) {
    out.push_back(mesh.names.empty() ? std::to_string(d) : mesh.names[static_cast<std::size_t>(d)]);
  }
  return core::join(out, ",");
}

std::string warning_lines(const MeshDescription& mesh, const std::vector<Warning>& warnings) {
  std::string out;
  for (const Warning& w : warnings) {
    out += "# warning " + std::string(warning_reason_name(w.reason)) + " (mesh dims " +
           mesh_dims_text(mesh, w.mesh_dims) + "): " + w.message + "\n";
  }
  return out;
}

}  // namespace dtplan::redist
