#pragma once
// Proves a redistribution plan correct on real data: fills the plan's source on every rank of its
// mesh with reproducible values (verify_values.h: integer-valued for exact checks, or floats),
// runs the plan with the executor (redist_executor.h) on a FakeProcessGroup in data mode, and
// checks every rank's result element by element against the destination spec's shard of the
// global tensor. It also audits bitwise determinism: every set of ranks that the destination
// says must hold the same values (ranks that differ only on its Replicate mesh dims) must hold
// the same bits.
//
//   auto report = verify_plan(plan, {.values = ValueKind::kFloat, .hardware = profile}).value();
//   report.wrong_elements == 0; report.replicas_bitwise_equal   // false for PyTorch #171916
//
// Destination checks: a Shard/Replicate mesh dim selects the rank's owned global indices
// (placement::owned_indices); where the destination has Partial mesh dims, the values of the
// ranks that differ only on those dims are first reduced in double (sum over P(sum), sum divided
// by the sizes of the P(avg) dims, max, min) and the reduction is compared, for each of those
// ranks. Counting: wrong_elements counts (rank, local element) pairs beyond the tolerance; a rank
// whose local shape is wrong counts all of its expected elements (at least one).
//
// Reductions follow the fake process group's NCCL-faithful orders: with a hardware profile the
// NCCL model picks each group's algorithm (Tree at small sizes, Ring at large), which sets the
// association of the sums, so replicas reduced by different groups may differ in their last bits.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "cost/hardware.h"
#include "redist/redist_plan.h"
#include "sim/fake_process_group.h"
#include "sim/trace.h"
#include "sim/verify_values.h"

namespace dtplan::sim {

struct VerifyOptions {
  ValueKind values = ValueKind::kFloat;
  std::uint64_t seed = 1;
  std::int64_t world_size = 0;  // 0: the plan's mesh (largest rank + 1); else at least that
  OrderPolicy order = OrderPolicy::kAuto;
  std::optional<cost::HardwareProfile> hardware{};  // the NCCL model's algorithm choice
  std::int64_t max_bytes = std::int64_t{1} << 30;   // all ranks' tensors at the largest state
};

struct VerifyReport {
  std::int64_t ranks = 0;     // ranks of the mesh
  std::int64_t elements = 0;  // local elements checked, over all ranks
  std::int64_t wrong_elements = 0;
  bool replicas_bitwise_equal = true;
  std::int64_t replica_sets = 0;            // sets of >= 2 ranks that must hold equal bits
  std::int64_t differing_replica_sets = 0;  // of those, sets whose members' bits differ
  std::int64_t max_replica_variants = 0;    // most distinct bit patterns within one set
  ValueKind values = ValueKind::kFloat;     // the kind used (integer dtypes: kInteger)
  bool exact = true;                        // checked with tolerance 0
  double max_error = 0;                     // largest |result - expected| seen
  std::string first_wrong;                  // "" or the first wrong element, for messages
  std::vector<TraceEntry> trace;            // every collective the run issued
  bool operator==(const VerifyReport&) const = default;
};

// Runs and checks `plan` (which need not pass check_plan: hand-built plans are run as written and
// checked against plan.dst). Errors: kUnsupported for a dtype without checkable values or a run
// over max_bytes; kBadInput for a plan the executor cannot run (naming the step) or a world
// smaller than the mesh.
core::Result<VerifyReport> verify_plan(const redist::RedistPlan& plan,
                                       const VerifyOptions& options = {});

// "40 ranks, 0 of 4096 elements wrong (float values, tolerance (C+4)u), replicas bitwise equal:
// no (8 of 8 replica sets differ)".
std::string describe(const VerifyReport& report);

}  // namespace dtplan::sim
