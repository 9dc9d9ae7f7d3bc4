#pragma once
// FakeProcessGroup: N simulated ranks in one process. Every rank's tensor lives in the caller's
// RankTensors store; a collective really moves and reduces the data among each group's members
// (data mode) or only computes the output shapes (cost-only mode, for worlds too large to hold),
// and in both modes records one TraceEntry per group.
//
// Reductions follow the order NCCL's algorithm would use (reduction_order.h,
// reduction_program.h): with a hardware profile, the NCCL model (cost::make_collective_model,
// formulas only) picks the algorithm for the collective, its size S and the group's node
// structure (node = global rank / gpus_per_node), and the algorithm implies the order; without a
// profile reductions use the ring order; OrderPolicy kRing / kTree force one order for every
// reduction (even where NCCL has no tree, e.g. reduce_scatter). Every member of one reduction
// receives identical bits; groups that straddle nodes differently may reduce in different orders.
//
//   auto pg = FakeProcessGroup::create({.world_size = 40, .gpus_per_node = 8,
//                                       .order = OrderPolicy::kTree}).value();
//   pg.all_reduce(fsdp_groups, ReduceOp::kSum, tensors);   // 8 groups of 5
//   pg.trace().size() == 8
//
// Data movement dispatches on the dtype once per call and then runs memcpy or the reduction
// engine's typed block loops; all_reduce and broadcast work in place, all_gather,
// reduce_scatter and all_to_all allocate each member's output once and release its input.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/limits.h"
#include "cost/collective_model.h"
#include "cost/hardware.h"
#include "sim/process_group.h"
#include "sim/trace.h"

namespace dtplan::sim {

enum class DataMode : std::uint8_t {
  kData,      // tensors carry bytes; collectives move and reduce them
  kCostOnly,  // tensors may be shape-only; outputs are shape-only; the trace is the same
};

enum class OrderPolicy : std::uint8_t {
  kAuto,  // the NCCL model's algorithm when a hardware profile is given, else the ring
  kRing,  // every reduction in ring order
  kTree,  // every reduction in tree order
};

// The largest world a FakeProcessGroup accepts.
inline constexpr std::int64_t kMaxFakeWorldSize = core::kMaxFakeWorldSize;

struct FakeProcessGroupOptions {
  std::int64_t world_size = 0;
  std::int64_t gpus_per_node = 8;
  DataMode mode = DataMode::kData;
  OrderPolicy order = OrderPolicy::kAuto;
  std::optional<cost::HardwareProfile> hardware =
      std::nullopt;  // enables the NCCL model's algorithm choice
};

// What one group's collective runs as: NCCL's algorithm and the reduction order.
struct GroupPlan {
  cost::Algorithm algorithm = cost::Algorithm::kNone;
  ReductionOrder order = ReductionOrder::kNone;
  bool operator==(const GroupPlan&) const = default;
};

class FakeProcessGroup final : public ProcessGroup {
 public:
  // Errors (kBadInput): world_size < 1, gpus_per_node < 1, an invalid profile, or more GPUs per
  // node than the profile's nodes have; kUnsupported: world_size > kMaxFakeWorldSize.
  static core::Result<FakeProcessGroup> create(FakeProcessGroupOptions options);

  [[nodiscard]] std::int64_t world_size() const override { return options_.world_size; }
  core::Status run(const CollectiveCall& call, RankTensors& tensors) override;

  // Every group of every call so far, in call order then group order.
  [[nodiscard]] const std::vector<TraceEntry>& trace() const { return trace_; }
  void clear_trace() { trace_.clear(); }
  // An empty trace and calls numbered from 0 again, as a new group would (the cost model's
  // memo is kept: one group can serve many plans).
  void reset_trace() {
    trace_.clear();
    calls_ = 0;
  }
  [[nodiscard]] const FakeProcessGroupOptions& options() const { return options_; }

  // The algorithm and order run() uses for `collective` of S = `nccl_bytes` on `group`:
  // {kNone, kNone} for one rank or S = 0; otherwise the forced order or the model's choice
  // (without a model: Ring, or P2P for all_to_all); the order is kNone for data movement.
  [[nodiscard]] core::Result<GroupPlan> plan_group(collective::Collective collective,
                                                   const Group& group,
                                                   std::int64_t nccl_bytes) const;

 private:
  explicit FakeProcessGroup(FakeProcessGroupOptions options);

  FakeProcessGroupOptions options_;
  std::unique_ptr<cost::CollectiveModel> model_;
  std::vector<TraceEntry> trace_;
  std::int64_t calls_ = 0;
};

}  // namespace dtplan::sim
