#pragma once
// CostModel: how the redistribution planners price one step on a mesh. Two named models:
//
//   nccl     (default) collectives through cost::NcclModel (memoised by cost::CachedModel) on
//            the node structure of the step's process groups: all groups of a mesh dim (or of a
//            flattened mesh) run at once, so a step costs the max over its distinct group
//            topologies; local ops (chunk copy, R -> P(sum) divide) through the roofline's memory
//            traffic (cost::local_op_cost).
//   dtensor  PyTorch DTensor's own model (docs/reference/placements.md §5), see dtensor_model.h.
//
// Both price a step whose group has one rank at 0: PyTorch skips such steps at runtime
// (docs/reference/placements.md §2).
//
//   auto model = make_cost_model(CostModelKind::kNccl, profile);
//   model->price(ctx, query).value().cost_us;

#include <cstdint>
#include <memory>
#include <string_view>

#include "core/result.h"
#include "cost/hardware.h"
#include "cost/nccl_constants.h"
#include "redist/mesh_context.h"
#include "redist/transform.h"

namespace dtplan::redist {

// What a step costs depends on, all of it rank-independent.
struct StepQuery {
  StepKind kind = StepKind::kAllReduce;
  std::uint32_t mesh_dims = 0;  // bit mask of the step's mesh dims
  int flattened = -1;           // index in MeshContext::flattened(), or -1 for one mesh dim
  // The per-rank buffer one rank passes, padded, max over ranks (collective.h's convention:
  // all_gather its input, reduce_scatter its output, all_reduce the whole buffer, all_to_all the
  // whole send buffer); a local op: the bytes it writes.
  std::int64_t bytes = 0;
  std::int64_t local_bytes = 0;  // the local bytes before the step, max over ranks
  // DTensor's byte count of the state before the step: global bytes / product of the sizes of
  // its shard-like mesh dims (one_step_redistribute_cost, docs/reference/placements.md §5.4),
  // unpadded.
  double ideal_bytes = 0;
  std::int64_t avg_scale = 1;  // > 1: a merged sum+avg reduction divides its result afterwards
  bool divides = false;        // a local partition to P(sum) divides by the group size
  bool operator==(const StepQuery&) const = default;
};

struct StepPrice {
  double cost_us = 0;
  cost::Algorithm algorithm = cost::Algorithm::kNone;
  cost::Protocol protocol = cost::Protocol::kNone;
  bool operator==(const StepPrice&) const = default;
};

class CostModel {
 public:
  virtual ~CostModel() = default;
  // "nccl" or "dtensor".
  [[nodiscard]] virtual std::string_view name() const = 0;
  // @post cost_us >= 0 and non-decreasing in bytes, local_bytes and ideal_bytes for a fixed
  //   (kind, group); 0 when the step's group has one rank. Errors come from the collective model
  //   (a group the hardware cannot hold).
  [[nodiscard]] virtual core::Result<StepPrice> price(const MeshContext& mesh,
                                                      const StepQuery& query) const = 0;
};

enum class CostModelKind : std::uint8_t { kNccl, kDTensor };

// "nccl", "dtensor".
std::string_view cost_model_name(CostModelKind kind);
core::Result<CostModelKind> parse_cost_model(std::string_view text, std::string_view what);

// The model of `kind` for a hardware profile (the dtensor model uses the profile only for the
// memory traffic of local ops). @pre validate(profile) passed.
std::unique_ptr<CostModel> make_cost_model(CostModelKind kind,
                                           const cost::HardwareProfile& profile);

// The roofline cost of a local op writing `bytes` (read and written once). Shared by the models.
core::Result<double> local_traffic_us(const cost::HardwareProfile& profile, std::int64_t bytes);

}  // namespace dtplan::redist
