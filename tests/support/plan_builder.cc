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
  return op(name, 0.0, {}, plan::Phase::kForward, layer, core::OpRole::kParam);
}

std::int32_t PlanBuilder::op(const std::string& name, double compute_us,
                             std::vector<std::int32_t> inputs, plan::Phase phase,
                             std::int32_t layer, core::OpRole role) {
  plan::PlanOp op;
  op.name = name;
  op.op = role == core::OpRole::kParam ? "placeholder" : "mm";
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

const std::vector<MeshCase>& mesh_cases() {
  static const std::vector<MeshCase> cases = {
      {{8}, {"dp"}, 8, {}},
      {{2, 4}, {"dp", "tp"}, 4, {}},
      {{4, 2}, {"dp", "tp"}, 4, {}},
      {{2, 2, 2}, {"pp", "dp", "tp"}, 2, {{"dp", "tp"}}},
      {{3, 2}, {"dp", "tp"}, 4, {{"dp", "tp"}}},  // groups straddle nodes unevenly
  };
  return cases;
}

plan::Plan random_plan(std::mt19937_64& rng, const MeshCase& m) {
  PlanBuilder b(m.shape, m.names, m.gpus_per_node, m.flatten);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int layers = uni(1, 4);
  std::vector<std::int32_t> params;
  for (int i = 0; i < uni(1, 5); ++i)
    params.push_back(b.param("w" + std::to_string(i), uni(-1, layers - 1)));
  std::vector<std::int32_t> ops;
  const int n = uni(6, 30);
  for (int i = 0; i < n; ++i) {
    const bool backward = i >= n / 2;
    const int layer = backward ? layers - 1 - (i - n / 2) * layers / (n - n / 2)
                               : i * layers / std::max(1, n / 2);
    std::vector<std::int32_t> in;
    for (int k = 0; k < uni(0, 3); ++k) {
      if (uni(0, 2) == 0 || ops.empty()) {
        in.push_back(params[static_cast<std::size_t>(uni(0, static_cast<int>(params.size()) - 1))]);
      } else {
        in.push_back(ops[static_cast<std::size_t>(uni(0, static_cast<int>(ops.size()) - 1))]);
      }
    }
    const auto op = b.op("op" + std::to_string(i), uni(0, 30) * 0.5, in,
                         backward ? plan::Phase::kBackward : plan::Phase::kForward, layer);
    ops.push_back(op);
    for (std::size_t s = 0; s < in.size(); ++s) {
      if (uni(0, 9) < 5) continue;
      std::vector<StepSpec> steps;
      for (int k = 0; k < uni(1, 3); ++k) {
        StepSpec st;
        const int kind = uni(0, 4);
        st.kind = kind == 4 ? redist::StepKind::kLocalChunk : static_cast<redist::StepKind>(kind);
        st.cost_us = uni(0, 20);
        const int d = uni(0, static_cast<int>(m.shape.size()));
        if (d == static_cast<int>(m.shape.size()) && !m.flatten.empty() &&
            st.kind != redist::StepKind::kLocalChunk) {
          st.mesh_dims = {1, 2};
          if (m.shape.size() == 2) st.mesh_dims = {0, 1};
          st.flattened = m.flatten[0][0] + "_" + m.flatten[0][1];
        } else {
          st.mesh_dims = {std::min(d, static_cast<int>(m.shape.size()) - 1)};
        }
        steps.push_back(st);
      }
      b.redistribute(op, static_cast<std::int32_t>(s), steps);
    }
  }
  return b.build();
}

}  // namespace dtplan::testing
