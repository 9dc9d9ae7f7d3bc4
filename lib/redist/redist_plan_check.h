#pragma once
// Checks of a redistribution plan read back from a file (`dtplan simulate --plan`, `dtplan
// replay --plan`): every field against what the writer derives from the others, recomputed with
// the writer's own functions, so that a plan edited by hand is refused instead of simulated.
// Errors are kBadInput and name the field at fault under `base`, the plan's path in its document
// (core::field_error: "field 'redistributions[3].steps[0].bytes': ..."); the readers prefix the
// source. check_plan (redist_plan.h) has already checked that the steps apply in order.
//
//   mesh           the description is describe_mesh() of the mesh it builds: shape, names (none
//                  empty), rank map (ranks below core::kMaxRanks: replay's world is the largest
//                  plus one), dim layouts, flattened meshes with their dims and layouts, GPUs per
//                  node, a hardware name;
//   planner        the planner that ran is the one requested_planner resolves to; model names a
//                  cost model; merge false: no step runs on a flattened mesh;
//   steps[i]       group_size is the size of the step's groups on the mesh; bytes is
//                  make_query()'s for the state before the step (what the planner records);
//                  cost_us a whole number of picoseconds in [0, kMaxCostPs] (step_pricer.h);
//   total_cost_us  the sum of the steps' picoseconds;
//   warnings       mesh dims ascending, distinct and on the mesh; one per (mesh dims, reason).
//
// Re-pricing (PriceCheck): where the plan's hardware profile is at hand, every step is priced
// again through the cost model the plan names (make_cost_model, StepPricer, as the planner
// prices it) and a stored cost, algorithm or protocol that differs is refused: the stored
// figures are what the plan predicts, and a plan whose figures the profile no longer gives was
// edited, or made with another profile, and is re-planned rather than re-priced.
//
//   DTPLAN_CHECK(check_read_plan(plan, ctx, "redistributions[3]"));
//   DTPLAN_TRY(PriceCheck prices, PriceCheck::make(ctx, profile, "mesh"));
//   DTPLAN_CHECK(prices.check(plan, "redistributions[3]"));

#include <array>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/result.h"
#include "cost/hardware.h"
#include "redist/cost_model.h"
#include "redist/mesh_context.h"
#include "redist/redist_plan.h"
#include "redist/step_pricer.h"

namespace dtplan::redist {

// A tensor's shape and dtype read back at `path`: what TensorSpec::make checks of them (sizes
// >= 0, at most core::kMaxTensorRank dims, bytes within int64), before any placement is read.
core::Status check_tensor_shape(const std::vector<std::int64_t>& shape, core::DType dtype,
                                std::span<const std::int64_t> mesh_sizes, const std::string& path);

// The description of a mesh read back against the mesh `ctx` built from it (build_described_mesh,
// MeshContext::make). Flattened meshes over no dims are not rebuilt and not compared.
core::Status check_mesh_description(const MeshDescription& mesh, const MeshContext& ctx,
                                    const std::string& base);

// Every field of `plan` (on `ctx`, built from plan.mesh) as listed above, prices aside.
// @pre check_plan(plan) passed.
core::Status check_read_plan(const RedistPlan& plan, const MeshContext& ctx,
                             const std::string& base);

// Re-prices plans on one mesh with one hardware profile. Keeps a reference to `ctx` (which must
// outlive it).
class PriceCheck {
 public:
  // Error (naming `mesh_path`) when the profile is not the one the mesh names or has fewer GPUs
  // per node than the mesh (the planners refuse that).
  static core::Result<PriceCheck> make(const MeshContext& ctx, const cost::HardwareProfile& profile,
                                       const std::string& mesh_path);

  // Every step's cost_us (in picoseconds), algorithm and protocol against the price of its query.
  // @pre check_read_plan(plan, ctx, base) passed.
  core::Status check(const RedistPlan& plan, const std::string& base);

 private:
  PriceCheck(const MeshContext& ctx, cost::HardwareProfile profile);

  const MeshContext* ctx_;
  cost::HardwareProfile profile_;
  // Per CostModelKind, made when first needed.
  std::array<std::unique_ptr<CostModel>, 2> models_;
  std::array<std::unique_ptr<StepPricer>, 2> pricers_;
};

// PriceCheck of a whole `dtplan redistribute --json` plan (it carries its own mesh).
core::Status check_plan_prices(const RedistPlan& plan, const cost::HardwareProfile& profile);

}  // namespace dtplan::redist
