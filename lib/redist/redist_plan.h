#pragma once
// RedistPlan: a priced redistribution plan that describes itself, so that the executor
// (`dtplan simulate --plan`, `--verify`) can run it without the planner: the mesh (shape, names,
// rank map, dim layouts, flattened meshes, GPUs per node, hardware), the tensor (shape, dtype,
// source and target placements), the options that made it, and every step with its collective,
// mesh dims, flattened mesh, group size, per-rank bytes, cost and the state after it.
// JSON I/O is in redist_plan_io.h.
//
//   steps   0,2: P(sum) -> R, all_reduce on A_C, 4 ranks, 16384 B, 12.3 us
//   trace   "P(sum)RP(sum)-->RRR"  (DTensor's debug trace: "->" between states, "-->" before the
//           state a flattened step reaches)

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "cost/nccl_constants.h"
#include "mesh/device_mesh.h"
#include "placement/tensor_spec.h"
#include "redist/rank_map.h"
#include "redist/redist_state.h"
#include "redist/transform.h"
#include "redist/warnings.h"

namespace dtplan::redist {

enum class PlannerKind : std::uint8_t { kGreedy, kMinCost, kAuto };

// "greedy", "min-cost", "auto".
std::string_view planner_name(PlannerKind kind);
core::Result<PlannerKind> parse_planner(std::string_view text, std::string_view what);

struct FlattenedMeshInfo {
  std::string name;
  std::vector<std::int32_t> mesh_dims;  // the dims it flattens (the fewest; empty if none match)
  std::string layout;                   // its layout, e.g. "((2,2)):((4,1))"
  bool operator==(const FlattenedMeshInfo&) const = default;
};

struct MeshDescription {
  std::vector<std::int64_t> shape;
  std::vector<std::string> names;    // empty: no dim names
  RankMap ranks;                     // the root's rank map, row-major (shared by copies)
  std::vector<std::string> layouts;  // each dim's layout over the rank map, e.g. "2:4"
  std::vector<FlattenedMeshInfo> flattened;
  std::int64_t gpus_per_node = 1;
  std::string hardware;
  bool operator==(const MeshDescription&) const = default;
};

struct PlanStep {
  Transform transform;
  std::int64_t group_size = 1;  // ranks per group (a flattened step: the flattened size)
  std::int64_t bytes = 0;       // StepQuery::bytes: the per-rank buffer, padded, max over ranks
  double cost_us = 0;           // integer picoseconds / 1e6
  cost::Algorithm algorithm = cost::Algorithm::kNone;
  cost::Protocol protocol = cost::Protocol::kNone;
  RedistState state;  // after the step
  bool operator==(const PlanStep&) const = default;
};

// Collectives that run (steps on one-rank groups are skipped at runtime and not counted).
struct CommCounts {
  int all_gather = 0;
  int all_reduce = 0;
  int reduce_scatter = 0;
  int all_to_all = 0;
  [[nodiscard]] int total() const { return all_gather + all_reduce + reduce_scatter + all_to_all; }
  bool operator==(const CommCounts&) const = default;
};

struct RedistPlan {
  MeshDescription mesh;
  placement::TensorSpec src;  // as requested
  placement::TensorSpec dst;
  // Where the steps start and end: the specs' states, with StridedShards decoded into a shard
  // order where that holds the same data (as DTensor's planner does), see plan_endpoint().
  RedistState start{};
  RedistState target{};
  PlannerKind requested = PlannerKind::kAuto;
  PlannerKind planner = PlannerKind::kGreedy;  // the one that ran
  std::string model{};                         // "nccl" or "dtensor"
  bool merge = true;
  std::vector<PlanStep> steps{};
  CommCounts comm_counts{};
  double total_cost_us = 0;  // sum of the steps' integer picoseconds / 1e6
  std::vector<Warning> warnings{};
  std::string trace{};
  bool operator==(const RedistPlan&) const = default;
};

// The state a plan starts (or ends) at for a spec: decode_spec's Shard + shard order when the
// spec's StridedShards decode to the same data, else the spec's own placements and order.
RedistState plan_endpoint(const placement::TensorSpec& spec,
                          std::span<const std::int64_t> mesh_sizes);

// The DTensor-style trace of a plan from `start`.
std::string plan_trace(const RedistState& start, std::span<const PlanStep> steps);

// The collectives of the steps with more than one rank.
CommCounts count_comms(std::span<const PlanStep> steps);

// Rebuilds the mesh a plan describes: a root over `ranks` with the dim layouts and names, and its
// flattened meshes (those with mesh dims; they need dim names). Errors (kBadInput) name the field.
core::Result<mesh::DeviceMesh> build_described_mesh(const MeshDescription& mesh);

// Checks that a plan is consistent (what reading a plan file relies on): the steps apply in order
// from `start` (apply_transform), their states are the states reached, the last one is
// equivalent to `target`, and comm_counts and trace match the steps. Errors (kBadInput) name the
// field at fault under `base`, the plan's path in its document (core::field_error: "field
// 'steps[1].state': ..."). Bytes and costs are checked against the mesh and the cost model by
// redist_plan_check.h.
core::Status check_plan(const RedistPlan& plan, const std::string& base = {});

}  // namespace dtplan::redist
