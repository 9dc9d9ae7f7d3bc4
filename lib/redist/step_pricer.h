#pragma once
// Step pricing: the byte counts of a step (StepQuery) from the state before it, and StepPricer,
// which memoises a CostModel's prices per (step kind, mesh dim or flattened dim set, bytes).
//
// Byte counts are maxima over ranks of padded buffers, which is what the collectives move (every
// rank of a group pads to the longest piece, docs/reference/placements.md §1.2), and they are
// products of per-tensor-dim maxima (each tensor dim is split by its own mesh dims, so the maxima
// are independent):
//   all_gather      per-rank input: the local tensor before the step
//   reduce_scatter  per-rank output: the local tensor after the step
//   all_reduce      the local tensor
//   all_to_all      the send buffer: group size x (local tensor with the target dim cut to the
//                   longest new piece)
//   local_chunk     the piece it writes; local_partition the local tensor
// So they depend on placements and shard order only, never on a rank: plans are rank-independent.
//
// Costs are kept in integer picoseconds (rounded once per step) so that sums are exact and equal
// plans tie exactly; cost_us values reported are cost_ps / 1e6.

#include <cstdint>
#include <span>

#include "core/dtype.h"
#include "core/result.h"
#include "redist/cost_model.h"
#include "redist/flat_map.h"
#include "redist/mesh_context.h"
#include "redist/redist_state.h"
#include "redist/split_chain.h"
#include "redist/transform.h"

namespace dtplan::redist {

// The query of a step from the longest local length of every tensor dim before it (`before`)
// and, for a step that adds a split to tensor dim `dst_dim` (-1 if none), that dim's longest
// length after it. `ideal_bytes` is DTensor's b of the state before. Sizes saturate at INT64_MAX.
// The caller sets avg_scale and divides.
StepQuery query_from_lengths(StepKind kind, std::uint32_t mesh_dims, int flattened,
                             std::int64_t group_size, std::span<const std::int64_t> before,
                             std::int32_t dst_dim, std::int64_t dst_after, std::int64_t item_bytes,
                             double ideal_bytes);

// The query of `t` applied to `before` (t must apply: see apply_transform).
// @post error (kBadInput) if t names a flattened mesh the context lacks or that does not flatten
//   exactly t's mesh dims.
core::Result<StepQuery> make_query(const MeshContext& mesh, std::span<const std::int64_t> shape,
                                   core::DType dtype, const RedistState& before,
                                   const Transform& t);

struct PricedQuery {
  std::int64_t cost_ps = 0;
  StepPrice price;  // price.cost_us == cost_ps / 1e6
};

// Memoises `model` on one mesh. Not thread-safe. Keeps references: the context and model must
// outlive it.
class StepPricer {
 public:
  StepPricer(const MeshContext& mesh, const CostModel& model) : mesh_(mesh), model_(model) {}

  core::Result<PricedQuery> price(const StepQuery& query);

  [[nodiscard]] const MeshContext& mesh() const { return mesh_; }
  [[nodiscard]] const CostModel& model() const { return model_; }

 private:
  struct Hash {
    std::uint64_t operator()(const StepQuery& q) const;
  };
  const MeshContext& mesh_;
  const CostModel& model_;
  FlatMap<StepQuery, PricedQuery, Hash> memo_{10};
};

// The most a step may cost, in picoseconds (about 75 minutes): to_ps caps there so that sums
// over any plan stay exact in int64, and a plan read back may not hold more.
inline constexpr std::int64_t kMaxCostPs = std::int64_t{1} << 52;

// Rounds a model's microseconds to integer picoseconds (negative and NaN become 0, beyond
// kMaxCostPs: kMaxCostPs).
std::int64_t to_ps(double us);

}  // namespace dtplan::redist
