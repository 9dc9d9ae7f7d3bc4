#pragma once
// Checks of a whole-model plan read back from a file (`dtplan simulate --plan`, `dtplan replay
// --plan`), beyond check_plan's structure: every field against what the writer derives from the
// others, with the writer's own functions (plan_summary.h, placement::TensorSpec), so that a plan
// edited by hand is refused instead of simulated. Errors are kBadInput and name the field by its
// path in the document (core::field_error); the reader prefixes the source. Each
// redistribution's own fields are checked by redist::check_read_plan as it is read, the mesh
// description by redist::check_mesh_description.
//
//   model, layers  a name; layers is the number of distinct op layers (or 1 where no op has
//                  one), each op's layer in [-1, layers);
//   ops[i]         shape, dtype and placements make a valid TensorSpec on the mesh (shard dims
//                  within the rank); the roles and the op
//                  "placeholder" of graph inputs (parameter, input, tangent) have no inputs;
//                  compute_us finite in [0, kMaxCostPs ps]; options >= 1; strategy either the op's
//                  placements or "OUTPUTS <- INPUTS" (strategy::format_strategy) whose first output
//                  is the op's placements;
//   training       grad_accum in [1, core::kMaxMicrobatches] (core/training.h); an op's schedule
//   "recompute" only on
//                  forward ops of a layer under a checkpoint policy, "gradient" only on backward
//                  ops (the runs they imply are checked through cost and collectives);
//   strategies     the sum of the ops' options;
//   redistributions[r]  the tensor is its producer's output (the consumer's, for a getitem), src
//                  the producer's placements; where the consumer's strategy lists its inputs, dst
//                  is the input slot's list, and a slot is redistributed exactly when its
//                  producer's placements differ from that list;
//   cost, collectives   equal to cost_summary / collective_summary (times up to summation order);
//   warnings       the redistributions' warnings (warning_summary), then the lowering's own, each
//                  once per (mesh dims, reason);
//   memory         peak_bytes_per_rank is the sum of the parts.
// The solver figures and memory.limit_bytes are the record of the run that made the plan and
// are checked for range only (the reader); nothing in simulate or replay derives from them.
//
// check_plan_prices re-prices every redistribution from the hardware profile
// (redist::PriceCheck, redist_plan_check.h) and, under training.async_tp, checks the fused
// matmuls against those async TP finds and prices in the plan (plan/async_tp.h).

#include <string_view>

#include "core/result.h"
#include "cost/hardware.h"
#include "plan/plan.h"

namespace dtplan::plan {

// The op kind of graph inputs (graph::op_name of kPlaceholder).
inline constexpr std::string_view kPlaceholderOp = "placeholder";
// The op kind that takes one output of a multi-output op (graph::op_name of kGetitem): its
// redistribution moves that output, which is the getitem's own output, not the producer's first.
inline constexpr std::string_view kGetitemOp = "getitem";

// Every field of `plan` as listed above. @pre check_plan(plan) passed.
core::Status check_read_plan(const Plan& plan);

// Every redistribution's steps re-priced with `profile` (the profile plan.mesh.hardware names).
core::Status check_plan_prices(const Plan& plan, const cost::HardwareProfile& profile);

}  // namespace dtplan::plan
