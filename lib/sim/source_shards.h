#pragma once
// The local tensors a verification run starts from and the global indices a rank's elements stand
// for, shared by verify_plan (the fake process group) and the replay backends' verification
// (replay/plan_verify.h), so that every backend starts a plan from the same bits.
//
//   owned = placement::owned_indices(spec, mesh_sizes, coord)       // per tensor dim
//   global_flat_indices(owned, {4, 6}): local element e of the rank is global flat index out[e]
//   source_shard(plan, values, coord): the rank's local tensor of plan.src, element e holding
//     values.contribution(out[e], k) (k: the rank's row-major coordinate on src's Partial dims)

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "core/result.h"
#include "placement/index_set.h"
#include "redist/redist_plan.h"
#include "sim/tensor.h"
#include "sim/verify_values.h"

namespace dtplan::sim {

// The global row-major flat index of every local element (row-major) of a rank owning `owned`.
// Example: owned {[2, 4), [0, 2)} of shape {4, 2} -> {4, 5, 6, 7}.
std::vector<std::int64_t> global_flat_indices(const std::vector<placement::IndexSet>& owned,
                                              std::span<const std::int64_t> shape);

// The local shape of `owned`: its count per dim.
Shape owned_counts(const std::vector<placement::IndexSet>& owned);

// global_flat_indices computed once per distinct owned set (replicas and Partial holders of one
// shard share it): verification of a 64-rank plan builds each list once, not once per rank.
class FlatIndexCache {
 public:
  explicit FlatIndexCache(std::vector<std::int64_t> shape) : shape_(std::move(shape)) {}
  const std::vector<std::int64_t>& get(const std::vector<placement::IndexSet>& owned);

 private:
  std::vector<std::int64_t> shape_;
  std::map<std::string, std::vector<std::int64_t>> cache_;
};

// The local tensor of plan.src at mesh coordinate `coord`, filled from `values`; `cache` (may be
// null) must be for plan.src's shape.
// Errors: owned_indices' (a coordinate outside the mesh), from_doubles'.
core::Result<Tensor> source_shard(const redist::RedistPlan& plan, const SourceValues& values,
                                  std::span<const std::int64_t> coord,
                                  FlatIndexCache* cache = nullptr);

}  // namespace dtplan::sim
