#include "support/plan_builder.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "mesh/device_mesh.h"
#include "mesh/mesh_ops.h"
#include "redist/mesh_context.h"
#include "redist/planner.h"

namespace dtplan::testing {

using placement::Placement;

namespace {

StepSpec spec(redist::StepKind kind, std::vector<std::int32_t> dims, double cost_us,
              std::string flattened) {
  return {kind, std::move(dims), cost_us, 1 << 20, std::move(flattened)};
}

}  // namespace

StepSpec all_gather(std::vector<std::int32_t> dims, double cost_us, std::string flattened) {
  return spec(redist::StepKind::kAllGather, std::move(dims), cost_us, std::move(flattened));
}
StepSpec reduce_scatter(std::vector<std::int32_t> dims, double cost_us, std::string flattened) {
  return spec(redist::StepKind::kReduceScatter, std::move(dims), cost_us, std::move(flattened));
}
StepSpec all_reduce(std::vector<std::int32_t> dims, double cost_us, std::string flattened) {
  return spec(redist::StepKind::kAllReduce, std::move(dims), cost_us, std::move(flattened));
}
StepSpec local_chunk(std::int32_t dim, double cost_us) {
  return spec(redist::StepKind::kLocalChunk, {dim}, cost_us, "");
}

PlanBuilder::PlanBuilder(std::vector<std::int64_t> shape, std::vector<std::string> names,
                         std::int64_t gpus_per_node,
                         std::vector<std::vector<std::string>> flatten) {
  auto mesh = mesh::DeviceMesh::create(shape, names);
  REQUIRE(mesh.ok());
  for (const auto& dims : flatten) {
    auto sliced = mesh::slice(*mesh, dims);
    REQUIRE(sliced.ok());
    REQUIRE(mesh::flatten(*sliced).ok());
  }
  auto ctx = redist::MeshContext::make(*mesh, gpus_per_node, "h100-dgx");
  REQUIRE(ctx.ok());
  plan_.model = "hand-made";
  plan_.mesh = redist::describe_mesh(*ctx);
}

std::int32_t PlanBuilder::param(const std::string& name, std::int32_t layer) {
  return op(name, 0.0, {}, plan::Phase::kForward, layer, "parameter");
}

std::int32_t PlanBuilder::op(const std::string& name, double compute_us,
                             std::vector<std::int32_t> inputs, plan::Phase phase,
                             std::int32_t layer, const std::string& role) {
  plan::PlanOp op;
  op.name = name;
  op.op = role == "parameter" ? "placeholder" : "mm";
  op.phase = phase;
  op.layer = layer;
  op.role = role;
  op.inputs = std::move(inputs);
  op.shape = {16, 16};
  op.placements.assign(plan_.mesh.shape.size(), Placement::replicate());
  op.compute_us = compute_us;
  plan_.ops.push_back(std::move(op));
  return static_cast<std::int32_t>(plan_.ops.size()) - 1;
}

void PlanBuilder::redistribute(std::int32_t consumer, std::int32_t slot,
                               std::vector<StepSpec> steps) {
  auto spec = placement::TensorSpec::make(
      {16, 16}, core::DType::kF32,
      std::vector<Placement>(plan_.mesh.shape.size(), Placement::replicate()), plan_.mesh.shape);
  REQUIRE(spec.ok());
  plan::PlanRedistribution rd{
      consumer, slot,
      plan_.ops[static_cast<std::size_t>(consumer)].inputs[static_cast<std::size_t>(slot)],
      redist::RedistPlan{plan_.mesh, *spec, *spec}};
  for (const StepSpec& s : steps) {
    redist::PlanStep step;
    step.transform.kind = s.kind;
    step.transform.mesh_dims = s.mesh_dims;
    step.transform.flattened_mesh = s.flattened;
    switch (s.kind) {
      case redist::StepKind::kAllGather:
        step.transform.src = Placement::shard(0);
        break;
      case redist::StepKind::kReduceScatter:
        step.transform.src = Placement::partial();
        step.transform.dst = Placement::shard(0);
        break;
      case redist::StepKind::kAllReduce:
        step.transform.src = Placement::partial();
        break;
      case redist::StepKind::kAllToAll:
        step.transform.src = Placement::shard(0);
        step.transform.dst = Placement::shard(1);
        break;
      case redist::StepKind::kLocalChunk:
        step.transform.dst = Placement::shard(0);
        break;
      case redist::StepKind::kLocalPartition:
        step.transform.dst = Placement::partial();
        break;
    }
    std::int64_t group = 1;
    for (std::int32_t d : s.mesh_dims) group *= plan_.mesh.shape[static_cast<std::size_t>(d)];
    step.group_size = group;
    step.bytes = s.bytes;
    step.cost_us = s.cost_us;
    rd.plan.steps.push_back(std::move(step));
    rd.plan.total_cost_us += s.cost_us;
  }
  rd.plan.comm_counts = redist::count_comms(rd.plan.steps);
  plan_.redistributions.push_back(std::move(rd));
}

plan::Plan PlanBuilder::build() const {
  plan::Plan p = plan_;
  std::sort(p.redistributions.begin(), p.redistributions.end(),
            [](const plan::PlanRedistribution& a, const plan::PlanRedistribution& b) {
              return std::pair(a.consumer, a.slot) < std::pair(b.consumer, b.slot);
            });
  for (const plan::PlanOp& op : p.ops) p.cost.compute_us += op.compute_us;
  for (const auto& rd : p.redistributions) p.cost.communication_us += rd.plan.total_cost_us;
  p.cost.total_us = p.cost.compute_us + p.cost.communication_us;
  return p;
}

}  // namespace dtplan::testing
