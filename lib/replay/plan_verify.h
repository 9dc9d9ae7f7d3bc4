#pragma once
// End-to-end verification of a redistribution on a replay backend: every held rank starts from
// its shard of the plan's source (sim/source_shards.h, integer values, sim/verify_values.h), the
// executor (sim/redist_executor.h) runs the plan's steps on the backend, and the result is
// checked three ways:
//   - against the fake process group: every process also runs the plan on a FakeProcessGroup of
//     the whole world and compares its held ranks' results element by element (bitwise where the
//     integer values are exact, which is every plan without an NCCL average over a group whose
//     size is not a power of two; otherwise within twice the values' tolerance);
//   - against the expected shards: sim::verify_plan checks the fake's results against the
//     destination spec; wrong_elements = the fake's wrong elements + the backend's mismatches
//     with the fake (exact when the fake is right, as it is for every planner-made plan; an
//     upper bound otherwise);
//   - replicas: each process hashes its ranks' results (FNV-1a of shape and bytes, 52 bits),
//     the hashes are summed over the world, and the ranks the destination replicates must agree.
// A plan whose fake run would hold more than max_bytes (over all ranks) or whose dtype has no
// checkable values is skipped (counted, not failed) on every process alike.
//
//   PlanVerify v = verify_redistribution(*pg, plan, {}).value();
//   v.wrong_elements == 0 && v.replicas_bitwise_equal

#include <cstdint>

#include "core/result.h"
#include "redist/redist_plan.h"
#include "replay/replay_group.h"

namespace dtplan::replay {

struct PlanVerifyOptions {
  std::int64_t max_bytes = std::int64_t{1} << 30;  // sim::VerifyOptions::max_bytes
};

struct PlanVerify {
  bool skipped = false;
  std::int64_t elements = 0;         // destination elements checked, over all ranks
  std::int64_t wrong_elements = 0;   // against the expected shards (see above)
  std::int64_t fake_mismatches = 0;  // backend elements that differ from the fake's
  std::int64_t replica_sets = 0;
  std::int64_t differing_replica_sets = 0;
  bool operator==(const PlanVerify&) const = default;
};

// Collective on every process of the world. Errors: the executor's (a plan it cannot run, a
// backend failure), a world smaller than the plan's mesh (kBadInput).
core::Result<PlanVerify> verify_redistribution(ReplayGroup& pg, const redist::RedistPlan& plan,
                                               const PlanVerifyOptions& options);

}  // namespace dtplan::replay
