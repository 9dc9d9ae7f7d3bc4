#pragma once
// Plans replayed on the fake process group (`dtplan simulate`): every step of a redistribution
// plan runs through the executor in cost-only mode (shape-only tensors, so real model sizes fit),
// recording what each group of each collective runs as (the NCCL model's algorithm per group and
// the reduction order it implies); with data, the plan is also verified (verify.h). A whole-model
// plan (plan/plan.h) is simulated redistribution by redistribution, on one fake process group;
// identical redistributions (same specs and steps, as repeated layers produce) are simulated and
// verified once and share the result.
//
//   auto sim = simulate_redistribution(plan, {.hardware = profile, .data = true}).value();
//   sim.steps[1].size() == 8            // the 8 groups of step 1's all_reduce
//   sim.verify->replicas_bitwise_equal

#include <cstdint>
#include <optional>
#include <vector>

#include "core/result.h"
#include "cost/hardware.h"
#include "plan/plan.h"
#include "redist/redist_plan.h"
#include "sim/trace.h"
#include "sim/verify.h"

namespace dtplan::sim {

struct SimulateOptions {
  std::int64_t world_size = 0;                    // 0: the mesh's (largest rank + 1)
  std::optional<cost::HardwareProfile> hardware;  // per-group algorithm choice
  bool data = false;                              // also verify with real data
  VerifyOptions verify;  // values and seed (world_size and hardware are taken from above)
};

struct RedistSimulation {
  std::int64_t world_size = 0;
  // Per plan step, one entry per group of its collective (empty: a local or one-rank step).
  std::vector<std::vector<TraceEntry>> steps;
  std::optional<VerifyReport> verify;  // with data, unless skipped
  std::string skipped;                 // why the data run was skipped ("" if it ran or not asked)
  bool operator==(const RedistSimulation&) const = default;
};

// Errors: those of RedistExecutor::create and FakeProcessGroup::create; a world smaller than
// the mesh (kBadInput). A data run over VerifyOptions::max_bytes is not an error: `skipped` says
// so.
core::Result<RedistSimulation> simulate_redistribution(const redist::RedistPlan& plan,
                                                       const SimulateOptions& options);

struct ModelSimulation {
  std::vector<RedistSimulation> redistributions;  // in the plan's order
  std::int64_t collectives = 0;                   // groups' collectives summed over all steps
  std::int64_t calls = 0;                         // collective calls (one per step that runs)
  std::int64_t verified = 0;                      // redistributions with a data run
  std::int64_t distinct_verified = 0;             // data runs actually made (duplicates share)
  std::int64_t skipped = 0;                       // data runs skipped for size
  std::int64_t wrong_elements = 0;                // summed over verified redistributions
  bool replicas_bitwise_equal = true;             // over verified redistributions
  bool operator==(const ModelSimulation&) const = default;
};

// Each redistribution of `plan` through simulate_redistribution; errors name the
// redistribution ("redistribution 3 (consumer 12 slot 1)").
core::Result<ModelSimulation> simulate_model_plan(const plan::Plan& plan,
                                                  const SimulateOptions& options);

}  // namespace dtplan::sim
