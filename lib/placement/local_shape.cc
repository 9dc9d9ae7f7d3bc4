#include "placement/local_shape.h"

#include <algorithm>
#include <string>

#include "core/checked.h"
#include "placement/chunk.h"

namespace dtplan::placement {

namespace {

// Applies the splits of `applied` mesh dims to `shape` (which starts as the global shape).
void apply_splits(const TensorSpec& spec, std::span<const std::int64_t> mesh_sizes,
                  std::span<const std::int64_t> coord, MeshDimMask applied,
                  std::span<std::int64_t> shape) {
  std::span<const ShardStep> steps = spec.shard_order().steps();
  std::size_t i = 0;
  while (i < steps.size()) {
    const auto t = static_cast<std::size_t>(steps[i].tensor_dim);
    std::int64_t length = shape[t];
    bool stopped = false;
    for (; i < steps.size() && static_cast<std::size_t>(steps[i].tensor_dim) == t; ++i) {
      const auto m = static_cast<std::size_t>(steps[i].mesh_dim);
      stopped = stopped || ((applied >> m) & 1U) == 0;
      if (!stopped) length = split_length(spec.placement(m), length, mesh_sizes[m], coord[m]);
    }
    shape[t] = length;
  }
}

core::Result<std::vector<std::int64_t>> shape_with(const TensorSpec& spec,
                                                   std::span<const std::int64_t> mesh_sizes,
                                                   std::span<const std::int64_t> coord,
                                                   MeshDimMask applied) {
  DTPLAN_CHECK(check_mesh_args(spec, mesh_sizes, coord));
  std::vector<std::int64_t> shape = spec.shape();
  apply_splits(spec, mesh_sizes, coord, applied, shape);
  return shape;
}

// The distinct lengths a shard-like placement leaves over all coordinates of its mesh dim
// (appended to `out`). torch.chunk gives full chunks, one partial, then empties; a strided
// split is constant between the break points of its two chunkings.
void outcomes(const Placement& p, std::int64_t length, std::int64_t n,
              std::vector<std::int64_t>& out) {
  std::vector<std::int64_t> reps = {0, n - 1};
  auto add_breaks = [&](std::int64_t piece) {
    if (piece == 0) return;
    const std::int64_t k = piece / chunk_size(piece, n);  // first rank not holding a full chunk
    for (std::int64_t r : {k, k + 1}) {
      if (r < n) reps.push_back(r);
    }
  };
  if (p.is_shard()) {
    add_breaks(length);
  } else if (length > 0) {
    const std::int64_t a = chunk_size(length, p.split_factor());
    add_breaks(a);
    add_breaks(length - (length / a) * a);
  }
  for (std::int64_t r : reps) out.push_back(split_length(p, length, n, r));
}

// Whether every rank of the group gets the same length when p splits `length` over n.
bool splits_evenly(const Placement& p, std::int64_t length, std::int64_t n) {
  if (p.is_shard() || length == 0) return length % n == 0;
  const std::int64_t a = chunk_size(length, p.split_factor());
  return a % n == 0 && (length - (length / a) * a) % n == 0;
}

constexpr std::size_t kMaxDistinctLengths = 4096;

}  // namespace

core::Result<std::vector<std::int64_t>> local_shape(const TensorSpec& spec,
                                                    std::span<const std::int64_t> mesh_sizes,
                                                    std::span<const std::int64_t> coord) {
  return shape_with(spec, mesh_sizes, coord, kAllMeshDims);
}

core::Status local_shape_into(const TensorSpec& spec, std::span<const std::int64_t> mesh_sizes,
                              std::span<const std::int64_t> coord, std::span<std::int64_t> out) {
  DTPLAN_CHECK(check_mesh_args(spec, mesh_sizes, coord));
  if (out.size() != spec.tensor_rank()) {
    return core::Error::internal("local_shape_into: output has " + std::to_string(out.size()) +
                                 " entries for a rank-" + std::to_string(spec.tensor_rank()) +
                                 " tensor");
  }
  std::copy(spec.shape().begin(), spec.shape().end(), out.begin());
  apply_splits(spec, mesh_sizes, coord, kAllMeshDims, out);
  return {};
}

core::Result<std::vector<std::int64_t>> shape_after(const TensorSpec& spec,
                                                    std::span<const std::int64_t> mesh_sizes,
                                                    std::span<const std::int64_t> coord,
                                                    MeshDimMask applied) {
  return shape_with(spec, mesh_sizes, coord, applied);
}

core::Result<std::vector<std::int64_t>> logical_shape(const TensorSpec& spec,
                                                      std::span<const std::int64_t> mesh_sizes,
                                                      std::span<const std::int64_t> coord,
                                                      std::size_t mesh_dim) {
  if (mesh_dim >= spec.mesh_ndim()) {
    return core::Error::bad_input("logical shape: mesh dim " + std::to_string(mesh_dim) +
                                  " does not exist (the spec has " +
                                  std::to_string(spec.mesh_ndim()) + " mesh dims)");
  }
  return shape_with(spec, mesh_sizes, coord, kAllMeshDims & ~(MeshDimMask{1} << mesh_dim));
}

core::Result<std::int64_t> local_bytes(const TensorSpec& spec,
                                       std::span<const std::int64_t> mesh_sizes,
                                       std::span<const std::int64_t> coord) {
  DTPLAN_TRY(std::vector<std::int64_t> shape, local_shape(spec, mesh_sizes, coord));
  // Each local size is at most the global one; checked all the same, since a zero-size dim lets
  // the other dims be so large that a running product overflows before it reaches the zero.
  DTPLAN_TRY(std::int64_t numel, core::checked_product(shape, "local shape numel"));
  return core::checked_mul(numel, core::dtype_bytes(spec.dtype()), "local shape bytes");
}

core::Result<std::int64_t> num_shards(const TensorSpec& spec,
                                      std::span<const std::int64_t> mesh_sizes) {
  DTPLAN_CHECK(check_mesh_args(spec, mesh_sizes));
  std::int64_t shards = 1;
  for (std::size_t m = 0; m < spec.mesh_ndim(); ++m) {
    if (spec.placement(m).is_shard_like()) shards *= mesh_sizes[m];
  }
  return shards;
}

core::Result<bool> is_evenly_sharded(const TensorSpec& spec,
                                     std::span<const std::int64_t> mesh_sizes,
                                     std::size_t mesh_dim) {
  DTPLAN_CHECK(check_mesh_args(spec, mesh_sizes));
  if (mesh_dim >= spec.mesh_ndim()) {
    return core::Error::bad_input("evenness: mesh dim " + std::to_string(mesh_dim) +
                                  " does not exist (the spec has " +
                                  std::to_string(spec.mesh_ndim()) + " mesh dims)");
  }
  const Placement& target = spec.placement(mesh_dim);
  if (!target.is_shard_like()) return true;
  // Every length the earlier splits of this tensor dim can leave, over all coordinates.
  std::vector<std::int64_t> lengths = {spec.shape()[static_cast<std::size_t>(target.dim())]};
  for (const ShardStep& step : spec.shard_order().steps_of(target.dim())) {
    const auto m = static_cast<std::size_t>(step.mesh_dim);
    if (m == mesh_dim) break;
    std::vector<std::int64_t> next;
    for (std::int64_t length : lengths) outcomes(spec.placement(m), length, mesh_sizes[m], next);
    std::sort(next.begin(), next.end());
    next.erase(std::unique(next.begin(), next.end()), next.end());
    if (next.size() > kMaxDistinctLengths) {
      return core::Error::unsupported("evenness of " + to_string(spec) + " on mesh dim " +
                                      std::to_string(mesh_dim) +
                                      ": nested uneven splits leave more than " +
                                      std::to_string(kMaxDistinctLengths) + " distinct lengths");
    }
    lengths = std::move(next);
  }
  return std::all_of(lengths.begin(), lengths.end(), [&](std::int64_t length) {
    return splits_evenly(target, length, mesh_sizes[mesh_dim]);
  });
}

core::Result<bool> is_evenly_sharded(const TensorSpec& spec,
                                     std::span<const std::int64_t> mesh_sizes) {
  DTPLAN_CHECK(check_mesh_args(spec, mesh_sizes));
  for (std::size_t m = 0; m < spec.mesh_ndim(); ++m) {
    DTPLAN_TRY(bool even, is_evenly_sharded(spec, mesh_sizes, m));
    if (!even) return false;
  }
  return true;
}

}  // namespace dtplan::placement
