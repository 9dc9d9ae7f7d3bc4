#include "sim/source_shards.h"

#include "placement/owned_indices.h"

namespace dtplan::sim {

std::vector<std::int64_t> global_flat_indices(const std::vector<placement::IndexSet>& owned,
                                              std::span<const std::int64_t> shape) {
  std::vector<std::int64_t> out = {0};
  std::int64_t stride = 1;
  std::vector<std::int64_t> strides(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  for (std::size_t d = 0; d < owned.size(); ++d) {
    const std::vector<std::int64_t> idx = owned[d].to_vector();
    std::vector<std::int64_t> next;
    next.reserve(out.size() * idx.size());
    for (std::int64_t base : out) {
      for (std::int64_t g : idx) next.push_back(base + g * strides[d]);
    }
    out = std::move(next);
  }
  return out;
}

Shape owned_counts(const std::vector<placement::IndexSet>& owned) {
  Shape s;
  for (const placement::IndexSet& set : owned) s.push_back(set.count());
  return s;
}

const std::vector<std::int64_t>& FlatIndexCache::get(
    const std::vector<placement::IndexSet>& owned) {
  std::string key;
  for (const placement::IndexSet& set : owned) key += placement::to_string(set) + "|";
  auto it = cache_.find(key);
  if (it == cache_.end()) {
    it = cache_.emplace(std::move(key), global_flat_indices(owned, shape_)).first;
  }
  return it->second;
}

core::Result<Tensor> source_shard(const redist::RedistPlan& plan, const SourceValues& values,
                                  std::span<const std::int64_t> coord, FlatIndexCache* cache) {
  const std::span<const std::int64_t> sizes = plan.mesh.shape;
  DTPLAN_TRY(std::vector<placement::IndexSet> owned,
             placement::owned_indices(plan.src, sizes, coord));
  std::int64_t k = 0;  // contributor: row-major over the Partial dims
  for (std::size_t m = 0; m < sizes.size(); ++m) {
    if (plan.src.placement(m).is_partial()) k = k * sizes[m] + coord[m];
  }
  std::vector<std::int64_t> own_flats;
  if (cache == nullptr) own_flats = global_flat_indices(owned, plan.src.shape());
  const std::vector<std::int64_t>& flats = cache != nullptr ? cache->get(owned) : own_flats;
  std::vector<double> local(flats.size());
  for (std::size_t e = 0; e < flats.size(); ++e) local[e] = values.contribution(flats[e], k);
  return from_doubles(plan.src.dtype(), owned_counts(owned), local);
}

}  // namespace dtplan::sim
