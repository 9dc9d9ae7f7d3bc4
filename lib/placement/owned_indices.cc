#include "placement/owned_indices.h"

#include <string>

#include "core/strings.h"
#include "placement/chunk.h"

namespace dtplan::placement {

namespace {

core::Status check_tensor_dim(const TensorSpec& spec, std::size_t tensor_dim) {
  if (tensor_dim < spec.tensor_rank()) return {};
  return core::Error::bad_input(to_string(spec) + ": tensor dim " + std::to_string(tensor_dim) +
                                " does not exist");
}

// owned_indices after check_mesh_args and check_tensor_dim.
core::Result<IndexSet> owned_unchecked(const TensorSpec& spec,
                                       std::span<const std::int64_t> mesh_sizes,
                                       std::span<const std::int64_t> coord,
                                       std::size_t tensor_dim) {
  IndexSet set = IndexSet::full(spec.shape()[tensor_dim]);
  for (const ShardStep& step : spec.shard_order().steps_of(static_cast<std::int32_t>(tensor_dim))) {
    const auto m = static_cast<std::size_t>(step.mesh_dim);
    const Placement& p = spec.placement(m);
    const std::int64_t length = set.count();
    if (p.is_shard()) {
      const IndexRange piece = chunk_piece(length, mesh_sizes[m], coord[m]);
      DTPLAN_TRY(set, set.select({&piece, 1}, piece.begin));
    } else {
      DTPLAN_TRY(std::vector<IndexRange> positions,
                 strided_positions(length, p.split_factor(), mesh_sizes[m], coord[m]));
      DTPLAN_TRY(set, set.select(positions, strided_anchor(length, p.split_factor(), mesh_sizes[m],
                                                           coord[m])));
    }
  }
  return set;
}

}  // namespace

core::Result<IndexSet> owned_indices(const TensorSpec& spec,
                                     std::span<const std::int64_t> mesh_sizes,
                                     std::span<const std::int64_t> coord, std::size_t tensor_dim) {
  DTPLAN_CHECK(check_mesh_args(spec, mesh_sizes, coord));
  DTPLAN_CHECK(check_tensor_dim(spec, tensor_dim));
  return owned_unchecked(spec, mesh_sizes, coord, tensor_dim);
}

core::Result<std::vector<IndexSet>> owned_indices(const TensorSpec& spec,
                                                  std::span<const std::int64_t> mesh_sizes,
                                                  std::span<const std::int64_t> coord) {
  DTPLAN_CHECK(check_mesh_args(spec, mesh_sizes, coord));
  std::vector<IndexSet> out;
  for (std::size_t t = 0; t < spec.tensor_rank(); ++t) {
    DTPLAN_TRY(IndexSet set, owned_unchecked(spec, mesh_sizes, coord, t));
    out.push_back(std::move(set));
  }
  return out;
}

core::Result<LocalBlock> local_block(const TensorSpec& spec,
                                     std::span<const std::int64_t> mesh_sizes,
                                     std::span<const std::int64_t> coord) {
  DTPLAN_TRY(std::vector<IndexSet> sets, owned_indices(spec, mesh_sizes, coord));
  LocalBlock block;
  for (std::size_t t = 0; t < sets.size(); ++t) {
    if (!sets[t].contiguous()) {
      return core::Error::unsupported(
          to_string(spec) + ": the rank at coordinate " + core::format_int_list(coord) +
          " owns non-contiguous indices " + to_string(sets[t]) + " of tensor dim " +
          std::to_string(t) + " (a _StridedShard); it has no single offset");
    }
    block.shape.push_back(sets[t].count());
    block.offset.push_back(sets[t].offset());
  }
  return block;
}

core::Result<IndexOwner> owner_of_index(const TensorSpec& spec,
                                        std::span<const std::int64_t> mesh_sizes,
                                        std::size_t tensor_dim, std::int64_t g) {
  DTPLAN_CHECK(check_mesh_args(spec, mesh_sizes));
  DTPLAN_CHECK(check_tensor_dim(spec, tensor_dim));
  std::int64_t length = spec.shape()[tensor_dim];
  if (g < 0 || g >= length) {
    return core::Error::bad_input(to_string(spec) + ": index " + std::to_string(g) +
                                  " is outside tensor dim " + std::to_string(tensor_dim) +
                                  " of size " + std::to_string(length));
  }
  IndexOwner owner;
  owner.coord.assign(spec.mesh_ndim(), -1);
  std::int64_t pos = g;
  for (const ShardStep& step : spec.shard_order().steps_of(static_cast<std::int32_t>(tensor_dim))) {
    const auto m = static_cast<std::size_t>(step.mesh_dim);
    const Placement& p = spec.placement(m);
    const Owner at = p.is_shard() ? chunk_owner(length, mesh_sizes[m], pos)
                                  : strided_owner(length, p.split_factor(), mesh_sizes[m], pos);
    owner.coord[m] = at.coord;
    length = split_length(p, length, mesh_sizes[m], at.coord);
    pos = at.local;
  }
  owner.local = pos;
  return owner;
}

}  // namespace dtplan::placement
