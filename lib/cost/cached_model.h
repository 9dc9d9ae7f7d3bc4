#pragma once
// CachedModel: memoises any CollectiveModel by its whole input, (collective, bytes, topology).
// Planners ask for the same few collectives on the same few groups millions of times; a hit is a
// hash, one direct-mapped slot and a key compare. A colliding key evicts the slot's entry, so
// results are always exactly the inner model's (the cache never changes an answer, only its
// speed). Not thread-safe: use one CachedModel per thread.

#include <cstdint>
#include <memory>
#include <vector>

#include "cost/collective_model.h"

namespace dtplan::cost {

class CachedModel final : public CollectiveModel {
 public:
  // @pre inner != nullptr; 4 <= log2_slots <= 24.
  explicit CachedModel(std::unique_ptr<CollectiveModel> inner, int log2_slots = 16);

  [[nodiscard]] std::string_view name() const override { return inner_->name(); }
  // Errors are not cached (they are rare and carry messages).
  [[nodiscard]] core::Result<CollectiveCost> cost(collective::Collective collective,
                                                  std::int64_t bytes,
                                                  const GroupTopology& topology) const override;

  [[nodiscard]] std::uint64_t hits() const { return hits_; }
  [[nodiscard]] std::uint64_t misses() const { return misses_; }

 private:
  struct Slot {
    std::int64_t bytes = -1;  // -1: empty
    GroupTopology topology;
    collective::Collective collective = collective::Collective::kAllReduce;
    CollectiveCost cost;
  };

  std::unique_ptr<CollectiveModel> inner_;
  mutable std::vector<Slot> slots_;
  std::uint64_t mask_;
  mutable std::uint64_t hits_ = 0;
  mutable std::uint64_t misses_ = 0;
};

}  // namespace dtplan::cost
