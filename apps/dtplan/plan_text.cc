#include "plan_text.h"

#include "core/strings.h"
#include "core/units.h"

namespace dtplan::cli {

std::string hardware_text(const redist::MeshDescription& mesh) {
  return mesh.hardware + " (" + std::to_string(mesh.gpus_per_node) + " GPUs per node)";
}

std::string flattened_text(const redist::MeshDescription& mesh) {
  std::vector<std::string> flats;
  for (const redist::FlattenedMeshInfo& f : mesh.flattened) flats.push_back(f.name);
  return flats.empty() ? "" : ", flattened " + core::join(flats, ",");
}

std::string bytes_text(std::int64_t bytes) {
  static const char* const kUnits[] = {"GiB", "MiB", "KiB"};
  for (int i = 0; i < 3; ++i) {
    const double unit = static_cast<double>(std::int64_t{1} << (10 * (3 - i)));
    if (static_cast<double>(bytes) >= unit) {
      return core::format_fixed(static_cast<double>(bytes) / unit, 2) + " " + kUnits[i];
    }
  }
  return std::to_string(bytes) + " B";
}

std::string placements_text(std::span<const placement::Placement> placements) {
  std::vector<std::string> parts;
  for (const placement::Placement& p : placements) parts.push_back(placement::to_string(p));
  return core::join(parts, ",");
}

}  // namespace dtplan::cli
