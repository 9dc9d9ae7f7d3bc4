#include "placement/tensor_spec.h"

#include <algorithm>

#include "core/checked.h"
#include "core/hash.h"
#include "core/strings.h"

namespace dtplan::placement {

namespace {

std::string mesh_text(std::span<const std::int64_t> mesh_sizes) {
  return "mesh " + core::format_int_list(mesh_sizes);
}

std::string placement_at(std::size_t mesh_dim, const Placement& p) {
  return "mesh dim " + std::to_string(mesh_dim) + " (" + to_string(p) + ")";
}

// Resolves negative shard dims against `rank`; checks every shard dim is in range.
core::Status resolve_dims(std::vector<Placement>& placements,
                          const std::vector<std::int64_t>& shape) {
  const auto rank = static_cast<std::int64_t>(shape.size());
  for (std::size_t m = 0; m < placements.size(); ++m) {
    Placement& p = placements[m];
    if (!p.is_shard_like()) continue;
    const std::int64_t dim = p.dim();
    if (dim < -rank || dim >= rank) {
      return core::Error::bad_input(placement_at(m, p) + ": tensor dim " + std::to_string(dim) +
                                    " is out of range for shape " + core::format_int_list(shape) +
                                    " (rank " + std::to_string(rank) + ")");
    }
    if (dim < 0) p = p.with_dim(static_cast<std::int32_t>(dim + rank));
  }
  return {};
}

core::Status check_mixed_partials(const std::vector<Placement>& placements) {
  for (std::size_t a = 0; a < placements.size(); ++a) {
    for (std::size_t b = a + 1; b < placements.size(); ++b) {
      const Placement& pa = placements[a];
      const Placement& pb = placements[b];
      if (pa.is_partial() && pb.is_partial() &&
          !partial_ops_compatible(pa.reduce_op(), pb.reduce_op())) {
        return core::Error::unsupported(
            placement_at(a, pa) + " and " + placement_at(b, pb) +
            ": Partial reduce ops cannot mix in one placement list (only sum and avg commute)");
      }
    }
  }
  return {};
}

}  // namespace

core::Status validate_mesh_sizes(std::span<const std::int64_t> mesh_sizes) {
  if (mesh_sizes.empty())
    return core::Error::bad_input(mesh_text(mesh_sizes) + ": a mesh has 1 to " +
                                  std::to_string(kMaxMeshDims) + " dims");
  if (mesh_sizes.size() > kMaxMeshDims) {
    return core::Error::unsupported(mesh_text(mesh_sizes) + ": a mesh has 1 to " +
                                    std::to_string(kMaxMeshDims) + " dims" +
                                    core::limit_note("kMaxPlacementMeshDims"));
  }
  for (std::size_t i = 0; i < mesh_sizes.size(); ++i) {
    if (mesh_sizes[i] < 1) {
      return core::Error::bad_input(mesh_text(mesh_sizes) + ": mesh dim " + std::to_string(i) +
                                    " has size " + std::to_string(mesh_sizes[i]) +
                                    "; sizes must be at least 1");
    }
  }
  auto ranks = core::checked_product(mesh_sizes, "rank count");
  if (!ranks.ok()) return std::move(ranks).error().with_context(mesh_text(mesh_sizes));
  return {};
}

core::Result<TensorSpec> TensorSpec::make(std::vector<std::int64_t> shape, core::DType dtype,
                                          std::vector<Placement> placements,
                                          std::span<const std::int64_t> mesh_sizes,
                                          std::optional<ShardOrder> shard_order) {
  DTPLAN_CHECK(validate_mesh_sizes(mesh_sizes));
  if (shape.size() > core::kMaxTensorRank) {
    return core::Error::unsupported(
        "shape of " + std::to_string(shape.size()) + " dims: a tensor has at most " +
        std::to_string(core::kMaxTensorRank) + " dims" + core::limit_note("kMaxTensorRank"));
  }
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0) {
      return core::Error::bad_input("shape " + core::format_int_list(shape) + ": tensor dim " +
                                    std::to_string(d) + " has negative size " +
                                    std::to_string(shape[d]));
    }
  }
  const std::string shape_what = "shape " + core::format_int_list(shape);
  DTPLAN_TRY(std::int64_t numel, core::checked_product(shape, shape_what + " numel"));
  DTPLAN_CHECK(core::checked_mul(numel, core::dtype_bytes(dtype), shape_what + " bytes"));
  if (placements.size() != mesh_sizes.size()) {
    return core::Error::bad_input(
        "placements " + format_placements(placements) + ": " + std::to_string(placements.size()) +
        " placement(s) for a " + mesh_text(mesh_sizes) + " with " +
        std::to_string(mesh_sizes.size()) + " dim(s); give one per mesh dim");
  }
  DTPLAN_CHECK(resolve_dims(placements, shape));
  DTPLAN_CHECK(check_mixed_partials(placements));
  ShardOrder order = shard_order ? std::move(*shard_order) : default_shard_order(placements);
  if (shard_order) DTPLAN_CHECK(validate_shard_order(order, placements));
  TensorSpec spec;
  spec.shape_ = std::move(shape);
  spec.placements_ = std::move(placements);
  spec.shard_order_ = std::move(order);
  spec.numel_ = numel;
  spec.dtype_ = dtype;
  return spec;
}

core::Result<TensorSpec> TensorSpec::make(std::vector<std::int64_t> shape, core::DType dtype,
                                          const PlacementList& list,
                                          std::span<const std::int64_t> mesh_sizes) {
  DTPLAN_CHECK(validate_mesh_sizes(mesh_sizes));
  if (list.order_positions.size() != list.placements.size()) {
    return core::Error::internal("placement list " + format_placements(list.placements) + " has " +
                                 std::to_string(list.order_positions.size()) +
                                 " shard-order positions; it needs one per placement");
  }
  std::vector<Placement> placements = list.placements;
  if (placements.size() != mesh_sizes.size()) {
    // make() reports the count; suffixes cannot be read without one placement per mesh dim.
    return make(std::move(shape), dtype, std::move(placements), mesh_sizes);
  }
  DTPLAN_CHECK(resolve_dims(placements, shape));
  DTPLAN_TRY(ShardOrder order, shard_order_from_positions(placements, list.order_positions));
  return make(std::move(shape), dtype, std::move(placements), mesh_sizes, std::move(order));
}

std::int64_t TensorSpec::global_bytes() const { return numel_ * core::dtype_bytes(dtype_); }

bool TensorSpec::is_replicated() const {
  return std::all_of(placements_.begin(), placements_.end(),
                     [](const Placement& p) { return p.is_replicate(); });
}

bool TensorSpec::has_partial() const {
  return std::any_of(placements_.begin(), placements_.end(),
                     [](const Placement& p) { return p.is_partial(); });
}

bool TensorSpec::has_strided_shard() const {
  return std::any_of(placements_.begin(), placements_.end(),
                     [](const Placement& p) { return p.is_strided_shard(); });
}

std::vector<ReduceOp> TensorSpec::partial_ops() const {
  std::vector<ReduceOp> ops;
  for (const Placement& p : placements_) {
    if (p.is_partial()) ops.push_back(p.reduce_op());
  }
  std::sort(ops.begin(), ops.end());
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  return ops;
}

core::Status check_mesh_args(const TensorSpec& spec, std::span<const std::int64_t> mesh_sizes) {
  if (mesh_sizes.size() != spec.mesh_ndim()) {
    return core::Error::bad_input(mesh_text(mesh_sizes) + " has " +
                                  std::to_string(mesh_sizes.size()) + " dim(s) but the spec " +
                                  to_string(spec) + " has " + std::to_string(spec.mesh_ndim()) +
                                  " placement(s)");
  }
  return validate_mesh_sizes(mesh_sizes);
}

core::Status check_mesh_args(const TensorSpec& spec, std::span<const std::int64_t> mesh_sizes,
                             std::span<const std::int64_t> coord) {
  DTPLAN_CHECK(check_mesh_args(spec, mesh_sizes));
  bool ok = coord.size() == mesh_sizes.size();
  for (std::size_t i = 0; ok && i < coord.size(); ++i) {
    ok = coord[i] >= 0 && coord[i] < mesh_sizes[i];
  }
  if (!ok) {
    return core::Error::bad_input("coordinate " + core::format_int_list(coord) +
                                  " is not a coordinate of " + mesh_text(mesh_sizes));
  }
  return {};
}

std::string format_placement_list(const TensorSpec& spec) {
  return format_placement_list(spec.placements(), spec.shard_order());
}

std::string format_trace_state(const TensorSpec& spec) {
  return format_trace_state(spec.placements(), spec.shard_order());
}

std::string to_string(const TensorSpec& spec) {
  return std::string(core::dtype_name(spec.dtype())) + core::format_int_list(spec.shape()) + " " +
         format_placement_list(spec);
}

std::size_t hash_value(const TensorSpec& spec) {
  std::size_t h = core::hash_combine(0, static_cast<std::uint64_t>(spec.dtype()));
  h = core::hash_combine(h, spec.shape().size());
  for (std::int64_t s : spec.shape()) h = core::hash_combine(h, static_cast<std::uint64_t>(s));
  for (const Placement& p : spec.placements()) h = core::hash_combine(h, hash_value(p));
  return core::hash_combine(h, hash_value(spec.shard_order()));
}

}  // namespace dtplan::placement
