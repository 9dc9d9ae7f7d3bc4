#include "cost/cached_model.h"

#include <cassert>
#include <utility>

namespace dtplan::cost {

CachedModel::CachedModel(std::unique_ptr<CollectiveModel> inner, int log2_slots)
    : inner_(std::move(inner)),
      slots_(std::size_t{1} << log2_slots),
      mask_((std::uint64_t{1} << log2_slots) - 1) {
  assert(inner_ != nullptr && log2_slots >= 4 && log2_slots <= 24);
}

core::Result<CollectiveCost> CachedModel::cost(collective::Collective collective,
                                               std::int64_t bytes,
                                               const GroupTopology& topology) const {
  if (bytes < 0) return inner_->cost(collective, bytes, topology);  // an error, never cached
  std::uint64_t h =
      static_cast<std::uint64_t>(bytes) ^ (static_cast<std::uint64_t>(collective) << 58);
  h = (h ^ (h >> 31)) * 0x9e3779b97f4a7c15ULL;  // spread the size's bits over the word
  h ^= hash_value(topology);
  h ^= h >> 32;
  Slot& slot = slots_[h & mask_];
  if (slot.bytes == bytes && slot.collective == collective && slot.topology == topology) {
    ++hits_;
    return slot.cost;
  }
  ++misses_;
  core::Result<CollectiveCost> r = inner_->cost(collective, bytes, topology);
  if (r.ok()) {
    slot.bytes = bytes;
    slot.topology = topology;
    slot.collective = collective;
    slot.cost = r.value();
  }
  return r;
}

}  // namespace dtplan::cost
