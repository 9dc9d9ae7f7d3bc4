#pragma once
// PlanBuilder: hand-made plan::Plan values for the step simulator's tests (before plans come
// from `dtplan plan`). Ops are added in execution order; a redistribution is a list of steps
// with the collective, mesh dims, cost and bytes the simulator reads (placements are filled in
// plausibly but not checked against states: redist::check_plan is not what these tests probe).
//
//   PlanBuilder b({2, 8}, {"dp", "tp"}, 8);        // 16 ranks, 8 GPUs per node
//   auto w = b.param("w", 0);
//   auto x = b.op("x", 10.0, {});
//   auto y = b.op("mm", 50.0, {x, w}, plan::Phase::kForward, 0);
//   b.redistribute(y, 1, {all_gather(0, 30.0)});    // an FSDP all-gather of w on dp
//   plan::Plan p = b.build();

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "plan/plan.h"
#include "redist/transform.h"

namespace dtplan::testing {

struct StepSpec {
  redist::StepKind kind = redist::StepKind::kAllGather;
  std::vector<std::int32_t> mesh_dims;
  double cost_us = 0;
  std::int64_t bytes = 1 << 20;
  std::string flattened;  // a flattened mesh of the builder's mesh, "" for one mesh dim
};

StepSpec all_gather(std::vector<std::int32_t> dims, double cost_us, std::string flattened = "");
StepSpec reduce_scatter(std::vector<std::int32_t> dims, double cost_us, std::string flattened = "");
StepSpec all_reduce(std::vector<std::int32_t> dims, double cost_us, std::string flattened = "");
StepSpec local_chunk(std::int32_t dim, double cost_us);

class PlanBuilder {
 public:
  // A mesh of `shape` over ranks 0..n-1, with flattened meshes of the named dims (each named
  // by joining the dim names with '_').
  PlanBuilder(std::vector<std::int64_t> shape, std::vector<std::string> names,
              std::int64_t gpus_per_node, std::vector<std::vector<std::string>> flatten = {});

  // A placeholder with role kParam (layer = the layer it belongs to).
  std::int32_t param(const std::string& name, std::int32_t layer = -1);
  std::int32_t op(const std::string& name, double compute_us, std::vector<std::int32_t> inputs,
                  plan::Phase phase = plan::Phase::kForward, std::int32_t layer = -1,
                  core::OpRole role = core::OpRole::kNone);
  // A redistribution before `slot` of `consumer` (its producer is the op in that slot).
  void redistribute(std::int32_t consumer, std::int32_t slot, std::vector<StepSpec> steps);

  // The plan, redistributions in (consumer, slot) order.
  [[nodiscard]] plan::Plan build() const;

 private:
  plan::Plan plan_;
};

// A small mesh for random plans (random_plan): flatten[0], if any, names the last two dims.
struct MeshCase {
  std::vector<std::int64_t> shape;
  std::vector<std::string> names;
  std::int64_t gpus_per_node;
  std::vector<std::vector<std::string>> flatten;
};

// Meshes of up to 8 ranks: one node, groups across nodes, uneven straddling, a flattened mesh.
const std::vector<MeshCase>& mesh_cases();

// A random plan: parameters, a forward over increasing layers, a backward over decreasing ones;
// random inputs; random redistributions of 1-3 steps on random dims (or flatten[0]) with costs
// 0..20.
plan::Plan random_plan(std::mt19937_64& rng, const MeshCase& m);

}  // namespace dtplan::testing
