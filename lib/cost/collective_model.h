#pragma once
// CollectiveModel: the interface every planner prices collectives through. A model answers "how
// long does collective C of S bytes take on a group with this node structure", where
//   - S (`bytes`) is the size in the nccl-tests / NCCL convention (collective.h): the whole vector
//     for all_reduce, the total OUTPUT for all_gather, the total INPUT for reduce_scatter, the
//     whole per-rank send buffer for all_to_all. Convert a per-rank buffer with
//     collective::nccl_size_from_rank_bytes(). The cost does not depend on the dtype.
//   - the group is a GroupTopology (group_topology.h), computed from its actual rank list.
// Implementations: NcclModel (default, a port of NCCL's tuning model), AlphaBetaModel (named
// Hockney model), MeasuredModel (a profile's measured tables over a fallback model) and
// CachedModel (memoises any model). The redistribution planner prices whole steps through its
// own interface, redist::CostModel (redist/cost_model.h): its nccl model prices collectives
// through this one, its DTensor model (redist::DTensorModel) does not.

#include <cstdint>
#include <memory>
#include <string_view>

#include "collective/collective.h"
#include "core/result.h"
#include "cost/group_topology.h"
#include "cost/hardware.h"
#include "cost/nccl_constants.h"

namespace dtplan::cost {

struct CollectiveCost {
  double time_us = 0;
  Algorithm algorithm = Algorithm::kNone;
  Protocol protocol = Protocol::kNone;
  double algbw_gbyte_per_s = 0;  // S / time, nccl-tests' algbw (GB/s = 1e9 B/s)
  double busbw_gbyte_per_s = 0;  // algbw x the collective's bus factor
  double latency_us = 0;         // the fixed part of time_us (0 for measured tables)
  double bandwidth_us = 0;       // the size-dependent part: bytes at the achieved bandwidth plus
                                 // pipeline fill (time_us = max(latency + bandwidth, launch
                                 // floor) + straggler skew)
  std::int32_t channels = 0;     // CTAs NCCL runs it on (0: not an NCCL kernel, e.g. measured)
  bool operator==(const CollectiveCost&) const = default;
};

class CollectiveModel {
 public:
  virtual ~CollectiveModel() = default;
  // "nccl", "alpha-beta", ...
  [[nodiscard]] virtual std::string_view name() const = 0;
  // The cost of one `collective` of `bytes` (S, see above) on `topology`.
  // @post time_us >= 0; for fixed (collective, topology) time_us is non-decreasing in bytes;
  // error (kBadInput) for bytes < 0 or a topology the hardware cannot hold (more ranks on a node
  // than it has GPUs, inconsistent counts); (kUnsupported) for a collective the model lacks.
  [[nodiscard]] virtual core::Result<CollectiveCost> cost(collective::Collective collective,
                                                          std::int64_t bytes,
                                                          const GroupTopology& topology) const = 0;
};

enum class ModelKind : std::uint8_t { kNccl, kAlphaBeta };

// "nccl", "alpha-beta".
std::string_view model_kind_name(ModelKind kind);
core::Result<ModelKind> parse_model_kind(std::string_view text, std::string_view what);

struct ModelOptions {
  ModelKind kind = ModelKind::kNccl;
  bool use_measured = true;  // the profile's measured tables override the formulas
  bool cache = true;         // memoise by (collective, bytes, topology); not thread-safe
};

// The model a planner should use for a profile. Example:
//   auto model = make_collective_model(profile, {});
//   model->cost(Collective::kAllReduce, 1 << 30, uniform_topology(2, 8));
std::unique_ptr<CollectiveModel> make_collective_model(const HardwareProfile& profile,
                                                       const ModelOptions& options);

// Checks that `topology` is consistent and fits the profile's nodes. Errors name the group.
core::Status check_topology(const HardwareProfile& profile, const GroupTopology& topology);

// Fills algbw/busbw from time and applies the profile's collective overheads:
// time = max(time, launch floor) + straggler skew (skew only when ranks > 1 and bytes > 0).
CollectiveCost finish_cost(const HardwareProfile& profile, collective::Collective collective,
                           std::int64_t bytes, const GroupTopology& topology, CollectiveCost raw);

}  // namespace dtplan::cost
