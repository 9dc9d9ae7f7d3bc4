#include "strategy/local_shapes.h"

#include <algorithm>
#include <cassert>

#include "placement/chunk.h"

namespace dtplan::strategy {

bool shardable(std::span<const std::int64_t> shape, const Placements& placements,
               std::span<const std::int64_t> mesh_sizes) {
  assert(placements.size() == mesh_sizes.size());
  // Tensors have at most a few dims; copy the lengths onto the stack when they fit.
  constexpr std::size_t kInline = 8;
  std::int64_t inline_sizes[kInline];
  std::vector<std::int64_t> heap;
  std::int64_t* sizes = inline_sizes;
  if (shape.size() > kInline) {
    heap.assign(shape.begin(), shape.end());
    sizes = heap.data();
  } else {
    std::copy(shape.begin(), shape.end(), inline_sizes);
  }
  for (std::size_t k = 0; k < placements.size(); ++k) {
    const placement::Placement& p = placements[k];
    if (!p.is_shard_like()) continue;
    const std::int32_t d = p.dim();
    if (d < 0 || static_cast<std::size_t>(d) >= shape.size()) return false;
    if (sizes[d] < mesh_sizes[k]) return false;
    sizes[d] = placement::chunk_size(sizes[d], mesh_sizes[k]);
  }
  return true;
}

graph::Shape local_shape_at_origin(std::span<const std::int64_t> shape,
                                   const Placements& placements,
                                   std::span<const std::int64_t> mesh_sizes) {
  graph::Shape local(shape.begin(), shape.end());
  for (std::size_t k = 0; k < placements.size() && k < mesh_sizes.size(); ++k) {
    const placement::Placement& p = placements[k];
    if (!p.is_shard_like()) continue;
    const auto d = static_cast<std::size_t>(p.dim());
    assert(d < local.size());
    local[d] = placement::split_length(p, local[d], mesh_sizes[k], 0);
  }
  return local;
}

bool partials_compatible(const Placements& placements) {
  const placement::Placement* first = nullptr;
  for (const placement::Placement& p : placements) {
    if (!p.is_partial()) continue;
    if (first == nullptr) {
      first = &p;
    } else if (!placement::partial_ops_compatible(first->reduce_op(), p.reduce_op())) {
      return false;
    }
  }
  return true;
}

}  // namespace dtplan::strategy
