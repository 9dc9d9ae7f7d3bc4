#include "support/plan_support.h"

#include <doctest/doctest.h>

#include "support/placement_specs.h"
#include "support/redist_support.h"

namespace dtplan::testing {

redist::RedistPlan planned(const redist::MeshDescription& mesh, std::vector<std::int64_t> shape,
                           const std::string& src, const std::string& dst) {
  auto built = redist::build_described_mesh(mesh);
  REQUIRE(built.ok());
  auto ctx = redist::MeshContext::make(*built, mesh.gpus_per_node, mesh.hardware);
  REQUIRE(ctx.ok());
  auto planner = make_planner(*ctx, redist::CostModelKind::kNccl);
  auto r =
      planner->plan_uncached(spec_of(shape, src, mesh.shape), spec_of(shape, dst, mesh.shape), {});
  REQUIRE(r.ok());
  return *r;
}

plan::Plan small_model_plan() {
  // The mesh description of a planned (2,2,2) request with the flattened mesh A_C.
  const redist::MeshDescription mesh =
      make_planner(mesh_context({2, 2, 2}, {"A", "B", "C"}, {{"A", "C"}}),
                   redist::CostModelKind::kNccl)
          ->plan_uncached(spec_of({16, 16}, "R,R,R", {2, 2, 2}),
                          spec_of({16, 16}, "R,R,R", {2, 2, 2}), {})
          .value()
          .mesh;
  plan::Plan p;
  p.model = "hand-made";
  p.layers = 1;
  p.mesh = mesh;
  auto op = [&](std::string name, std::string kind, core::OpRole role, std::vector<std::int32_t> in,
                const std::string& placements, double us) {
    plan::PlanOp o;
    o.name = std::move(name);
    o.op = std::move(kind);
    o.role = role;
    o.inputs = std::move(in);
    o.shape = {16, 16};
    o.placements = spec_of({16, 16}, placements, {2, 2, 2}).placements();
    o.strategy = placements;
    o.options = 4;
    o.compute_us = us;
    p.ops.push_back(std::move(o));
  };
  op("x", "placeholder", core::OpRole::kInput, {}, "S(0),R,R", 0);
  op("w", "placeholder", core::OpRole::kParam, {}, "R,S(1),R", 0);
  op("y", "mm", core::OpRole::kNone, {0, 1}, "R,P(sum),R", 3.5);
  op("z", "add", core::OpRole::kNone, {2, 2}, "R,R,R", 0.25);
  p.ops[3].phase = plan::Phase::kBackward;
  p.redistributions.push_back({2, 0, 0, planned(mesh, {16, 16}, "S(0),R,R", "R,R,R")});
  p.redistributions.push_back({3, 0, 2, planned(mesh, {16, 16}, "R,P(sum),R", "R,R,R")});
  p.strategies = 16;
  p.solver = {"exact", 0.001, 10.0, 10.0, true};
  for (const plan::PlanOp& o : p.ops) p.cost.compute_us += o.compute_us;
  for (const plan::PlanRedistribution& rd : p.redistributions) {
    p.cost.communication_us += rd.plan.total_cost_us;
    for (const redist::PlanStep& s : rd.plan.steps) {
      p.collectives.push_back(
          {s.transform.kind == redist::StepKind::kAllGather ? collective::Collective::kAllGather
                                                            : collective::Collective::kAllReduce,
           s.transform.mesh_dims, s.transform.flattened_mesh, s.group_size, 1, s.bytes, s.cost_us});
    }
  }
  p.cost.total_us = p.cost.compute_us + p.cost.communication_us;
  p.memory = {512, 512, 1024, 2048, 4096, 0};
  p.warnings.push_back({redist::WarningReason::kNoFlattenedMesh, {0, 1}, "flatten A,B"});
  return p;
}

}  // namespace dtplan::testing
