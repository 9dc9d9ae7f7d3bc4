#include "strategy/parallel_style.h"

#include <vector>

#include "core/strings.h"
#include "strategy/torchtitan_pins.h"

namespace dtplan::strategy {

namespace {

// The tp style of a 2-D weight sharded on `dim`; empty when none matches.
std::string tp_style(std::string_view name, std::size_t rank, std::int32_t dim) {
  if (rank != 2 || (dim != 0 && dim != 1)) return "";
  const bool embedding = name.find("embeddings") != std::string_view::npos;
  const bool colwise = (dim == 0) != embedding;
  return colwise ? "ColwiseParallel" : "RowwiseParallel";
}

}  // namespace

std::string torchtitan_style(std::string_view name, std::size_t rank,
                             std::span<const placement::Placement> placements,
                             std::span<const std::string> dim_names) {
  std::vector<std::string> fsdp;
  std::vector<std::string> parts;
  std::size_t fsdp_at = 0;  // where FSDP's part goes: before the first part after its first dim
  for (std::size_t d = 0; d < placements.size() && d < dim_names.size(); ++d) {
    const placement::Placement& p = placements[d];
    if (p.is_replicate()) continue;
    auto role = parse_mesh_role(dim_names[d]);
    if (!role.ok()) return "-";
    if ((*role == MeshRole::kDpShard || *role == MeshRole::kCp) && p.is_shard_like(0)) {
      if (fsdp.empty()) fsdp_at = parts.size();
      fsdp.push_back(dim_names[d]);
      continue;
    }
    if (*role == MeshRole::kTp && p.is_shard()) {
      const std::string style = tp_style(name, rank, p.dim());
      if (style.empty()) return "-";
      parts.push_back(style + "(" + dim_names[d] + ")");
      continue;
    }
    return "-";
  }
  if (!fsdp.empty()) {
    parts.insert(parts.begin() + static_cast<std::ptrdiff_t>(fsdp_at),
                 "FSDP(" + core::join(fsdp, ",") + ")");
  }
  return parts.empty() ? "Replicate" : core::join(parts, " + ");
}

}  // namespace dtplan::strategy
