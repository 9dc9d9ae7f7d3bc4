#include "placement/strided_encoding.h"

#include <algorithm>
#include <string>

#include "core/strings.h"
#include "placement/owned_indices.h"
#include "placement/placement_text.h"

namespace dtplan::placement {

namespace {

core::Status check_sizes(std::span<const Placement> placements,
                         std::span<const std::int64_t> mesh_sizes) {
  DTPLAN_CHECK(validate_mesh_sizes(mesh_sizes));
  if (placements.size() == mesh_sizes.size()) return {};
  return core::Error::bad_input("placements " + format_placements(placements) + ": " +
                                std::to_string(placements.size()) + " placement(s) for a mesh " +
                                core::format_int_list(mesh_sizes));
}

// Product of the sizes of the mesh dims in `mesh_dims` (within a validated mesh: no overflow).
std::int64_t size_product(std::span<const std::int32_t> mesh_dims,
                          std::span<const std::int64_t> mesh_sizes) {
  std::int64_t out = 1;
  for (std::int32_t m : mesh_dims) out *= mesh_sizes[static_cast<std::size_t>(m)];
  return out;
}

// Whether every tensor dim split by two or more mesh dims divides by the product of their
// sizes: then each level of both forms splits evenly and the layouts coincide.
bool evenly_divisible(const TensorSpec& spec, std::span<const std::int64_t> mesh_sizes) {
  for (std::size_t t = 0; t < spec.tensor_rank(); ++t) {
    std::vector<std::int32_t> dims = spec.shard_order().mesh_dims_of(static_cast<std::int32_t>(t));
    if (dims.size() >= 2 && spec.shape()[t] % size_product(dims, mesh_sizes) != 0) return false;
  }
  return true;
}

// Calls visit(coord) for every coordinate of the mesh dims in `mask` (the others stay 0).
template <class Visit>
core::Status for_each_coord(std::span<const std::int64_t> mesh_sizes, std::uint32_t mask,
                            Visit visit) {
  std::vector<std::size_t> dims;
  for (std::size_t m = 0; m < mesh_sizes.size(); ++m) {
    if (((mask >> m) & 1U) != 0) dims.push_back(m);
  }
  std::vector<std::int64_t> coord(mesh_sizes.size(), 0);
  while (true) {
    DTPLAN_CHECK(visit(std::span<const std::int64_t>(coord)));
    std::size_t k = dims.size();
    while (true) {
      if (k == 0) return {};
      --k;
      if (++coord[dims[k]] < mesh_sizes[dims[k]]) break;
      coord[dims[k]] = 0;
    }
  }
}

core::Error layout_changes(const TensorSpec& from, const TensorSpec& to, std::string_view verb) {
  return core::Error::unsupported(std::string(verb) + " " + to_string(from) + " as " +
                                  format_placement_list(to) +
                                  " would move elements between ranks: the split of some tensor "
                                  "dim is uneven, and the two forms chunk uneven lengths "
                                  "differently");
}

}  // namespace

core::Result<std::vector<Placement>> encode_shard_order(std::span<const Placement> placements,
                                                        const ShardOrder& order,
                                                        std::span<const std::int64_t> mesh_sizes) {
  DTPLAN_CHECK(check_sizes(placements, mesh_sizes));
  for (std::size_t m = 0; m < placements.size(); ++m) {
    if (placements[m].is_strided_shard()) {
      return core::Error::unsupported("encode shard order " + to_string(order) + ": mesh dim " +
                                      std::to_string(m) + " already holds " +
                                      to_string(placements[m]) +
                                      "; only Shard placements carry an order to encode");
    }
  }
  DTPLAN_CHECK(validate_shard_order(order, placements));
  std::vector<Placement> out(placements.begin(), placements.end());
  std::span<const ShardStep> steps = order.steps();
  for (std::size_t k = 0; k < steps.size(); ++k) {
    std::int64_t sf = 1;
    for (std::size_t j = k; j > 0 && steps[j - 1].tensor_dim == steps[k].tensor_dim; --j) {
      if (steps[j - 1].mesh_dim > steps[k].mesh_dim) {
        sf *= mesh_sizes[static_cast<std::size_t>(steps[j - 1].mesh_dim)];
      }
    }
    out[static_cast<std::size_t>(steps[k].mesh_dim)] =
        Placement::strided_shard(steps[k].tensor_dim, sf);
  }
  return out;
}

core::Result<DecodedPlacements> decode_strided_shards(std::span<const Placement> placements,
                                                      std::span<const std::int64_t> mesh_sizes) {
  DTPLAN_CHECK(check_sizes(placements, mesh_sizes));
  DecodedPlacements out;
  out.placements.assign(placements.begin(), placements.end());
  // Per tensor dim (in order of first appearance), its mesh dims in split order.
  std::vector<std::pair<std::int32_t, std::vector<std::int32_t>>> lists;
  for (std::size_t i = placements.size(); i > 0; --i) {
    const std::size_t m = i - 1;
    const Placement& p = placements[m];
    if (!p.is_shard_like()) continue;
    std::vector<std::int32_t>* list = nullptr;
    for (auto& [dim, dims] : lists) list = dim == p.dim() ? &dims : list;
    if (list == nullptr) list = &lists.emplace_back(p.dim(), std::vector<std::int32_t>{}).second;
    std::size_t pos = 0;
    std::int64_t product = 1;
    while (product != p.split_factor() && pos < list->size()) {
      product *= mesh_sizes[static_cast<std::size_t>((*list)[pos])];
      ++pos;
    }
    if (product != p.split_factor()) {
      return core::Error::unsupported(
          "placements " + format_placements(placements) + " on mesh " +
          core::format_int_list(mesh_sizes) + ": mesh dim " + std::to_string(m) + " (" +
          to_string(p) + ") is not decodable into a shard order: its split factor " +
          std::to_string(p.split_factor()) +
          " is not a product of the sizes of the mesh dims after it that split tensor dim " +
          std::to_string(p.dim()) + " first");
    }
    list->insert(list->begin() + static_cast<std::ptrdiff_t>(pos), static_cast<std::int32_t>(m));
    out.placements[m] = Placement::shard(p.dim());
  }
  std::vector<ShardStep> steps;
  for (const auto& [dim, dims] : lists) {
    for (std::int32_t m : dims) steps.push_back({dim, m});
  }
  DTPLAN_TRY(out.shard_order, ShardOrder::from_steps(std::move(steps)));
  return out;
}

core::Result<bool> same_local_data(const TensorSpec& a, const TensorSpec& b,
                                   std::span<const std::int64_t> mesh_sizes) {
  DTPLAN_CHECK(check_mesh_args(a, mesh_sizes));
  DTPLAN_CHECK(check_mesh_args(b, mesh_sizes));
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) return false;
  for (std::size_t m = 0; m < a.mesh_ndim(); ++m) {
    const Placement& pa = a.placement(m);
    const Placement& pb = b.placement(m);
    if ((pa.is_partial() || pb.is_partial()) && pa != pb) return false;
  }
  bool same = true;
  for (std::size_t t = 0; t < a.tensor_rank() && same; ++t) {
    std::uint32_t mask = 0;
    for (const TensorSpec* spec : {&a, &b}) {
      for (const ShardStep& s : spec->shard_order().steps_of(static_cast<std::int32_t>(t))) {
        mask |= std::uint32_t{1} << s.mesh_dim;
      }
    }
    DTPLAN_CHECK(
        for_each_coord(mesh_sizes, mask, [&](std::span<const std::int64_t> coord) -> core::Status {
          if (!same) return {};
          DTPLAN_TRY(IndexSet sa, owned_indices(a, mesh_sizes, coord, t));
          DTPLAN_TRY(IndexSet sb, owned_indices(b, mesh_sizes, coord, t));
          same = sa.ranges().size() == sb.ranges().size() &&
                 std::equal(sa.ranges().begin(), sa.ranges().end(), sb.ranges().begin());
          return {};
        }));
  }
  return same;
}

core::Result<TensorSpec> encode_spec(const TensorSpec& spec,
                                     std::span<const std::int64_t> mesh_sizes) {
  DTPLAN_CHECK(check_mesh_args(spec, mesh_sizes));
  if (spec.shard_order().is_default()) return spec;
  DTPLAN_TRY(std::vector<Placement> placements,
             encode_shard_order(spec.placements(), spec.shard_order(), mesh_sizes));
  DTPLAN_TRY(TensorSpec encoded,
             TensorSpec::make(spec.shape(), spec.dtype(), std::move(placements), mesh_sizes));
  if (!evenly_divisible(spec, mesh_sizes)) {
    DTPLAN_TRY(bool same, same_local_data(spec, encoded, mesh_sizes));
    if (!same) return layout_changes(spec, encoded, "encoding");
  }
  return encoded;
}

core::Result<TensorSpec> decode_spec(const TensorSpec& spec,
                                     std::span<const std::int64_t> mesh_sizes) {
  DTPLAN_CHECK(check_mesh_args(spec, mesh_sizes));
  if (!spec.has_strided_shard()) return spec;
  if (!spec.shard_order().is_default()) {
    return core::Error::unsupported("decoding " + to_string(spec) +
                                    ": _StridedShard placements with a non-default shard order "
                                    "have no decoded form");
  }
  DTPLAN_TRY(DecodedPlacements decoded, decode_strided_shards(spec.placements(), mesh_sizes));
  DTPLAN_TRY(TensorSpec out,
             TensorSpec::make(spec.shape(), spec.dtype(), std::move(decoded.placements), mesh_sizes,
                              std::move(decoded.shard_order)));
  if (!evenly_divisible(out, mesh_sizes)) {
    DTPLAN_TRY(bool same, same_local_data(spec, out, mesh_sizes));
    if (!same) return layout_changes(spec, out, "decoding");
  }
  return out;
}

}  // namespace dtplan::placement
