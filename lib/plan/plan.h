#pragma once
// plan::Plan: a whole-model plan as `dtplan plan` lowers it and `dtplan simulate` / `dtplan
// replay` read it, self-contained (no graph or strategy types: data flows graph -> strategy/solve
// -> plan -> sim/replay one way). It holds the mesh once, every op in execution order (forward
// then backward, topological) with the strategy chosen for it, its compute time and its
// producers, and every redistribution on an edge with its planned steps (merged on flattened
// meshes where the rules allow). JSON I/O: plan_io.h.
//
//   ops[12]            "layers.0.attention.wq"  einsum  forward  layer 0  S(0)S(2)  99.22 us
//   redistributions[3] consumer 12 slot 1 producer 4: S(0)R -> S(0)S(1), 1 step, 0.8 us
//
// Conventions: times in microseconds (double, sums of integer picoseconds / 1e6 where the cost
// model gives them), bytes per rank as int64; op indices are positions in `ops`.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "collective/collective.h"
#include "core/dtype.h"
#include "core/op_role.h"
#include "core/result.h"
#include "core/training.h"
#include "placement/placement.h"
#include "plan/fused_matmul.h"
#include "redist/redist_plan.h"
#include "redist/warnings.h"

namespace dtplan::plan {

enum class Phase : std::uint8_t { kForward, kBackward };

// "forward", "backward".
std::string_view phase_name(Phase phase);
core::Result<Phase> parse_phase(std::string_view text, std::string_view what);

// How an op runs in a training step (plan/step_runs.h gives the counts):
//   kMicrobatch  once per microbatch;
//   kRecompute   a forward op that activation checkpointing runs again before its layer's
//                backward: twice per microbatch (graph/recompute.h decides which);
//   kGradient    a backward op on a weight gradient's way to the returned gradient (its
//                einsum, permute, fp32 cast): once per microbatch, and the redistributions
//                between two such ops (FSDP's reduce-scatter) run once per step under
//                GradSync::kLastMicrobatch.
enum class OpSchedule : std::uint8_t { kMicrobatch, kRecompute, kGradient };

// "microbatch", "recompute", "gradient".
std::string_view op_schedule_name(OpSchedule schedule);
core::Result<OpSchedule> parse_op_schedule(std::string_view text, std::string_view what);

struct PlanOp {
  std::string name;  // graph node name, unique
  std::string op;    // op kind, e.g. "mm", "einsum", "placeholder"
  Phase phase = Phase::kForward;
  std::int32_t layer = -1;                  // repeated-layer index, -1 outside the layers
  core::OpRole role = core::OpRole::kNone;  // plan JSON spelling: core::plan_role_name
  std::vector<std::int32_t> inputs;         // producer op per input slot (earlier ops only)
  std::vector<std::int64_t> shape;          // output 0's global shape
  core::DType dtype = core::DType::kF32;
  std::vector<placement::Placement> placements;  // output 0's chosen placements, one per mesh dim
  std::string strategy;      // the chosen strategy as text (strategy::format_strategy)
  std::int32_t options = 0;  // how many strategies the op had
  double compute_us = 0;     // roofline time of the op on one rank, one run
  OpSchedule schedule = OpSchedule::kMicrobatch;
  bool operator==(const PlanOp&) const = default;
};

// A redistribution of a producer's output before a consumer's input slot.
struct PlanRedistribution {
  std::int32_t consumer = 0;
  std::int32_t slot = 0;
  std::int32_t producer = 0;
  redist::RedistPlan plan;  // plan.mesh equals Plan::mesh
  bool operator==(const PlanRedistribution&) const = default;
};

// Collectives of one training step grouped by (kind, mesh dims, flattened mesh, group size);
// count, bytes and time include every run (plan/step_runs.h).
struct CollectiveSummary {
  collective::Collective kind = collective::Collective::kAllGather;
  std::vector<std::int32_t> mesh_dims;  // ascending
  std::string flattened;                // the flattened mesh used, "" if none
  std::int64_t group_size = 1;
  std::int64_t count = 0;
  std::int64_t bytes = 0;  // per rank, summed
  double time_us = 0;      // summed
  bool operator==(const CollectiveSummary&) const = default;
};

struct SolverSummary {
  std::string name;  // "exact", "greedy", "ilp"
  double time_s = 0;
  double objective_us = 0;
  double lower_bound_us = 0;
  bool optimal = false;
  // Why an unproven solve stopped: "gap" (within the gap asked for), "time_limit" or
  // "point_limit"; empty when it finished, or where a solver or an older plan file does not say.
  std::string stop_reason{};
  bool operator==(const SolverSummary&) const = default;
};

// total_us = compute_us + communication_us + redistribution_us per training step (every run of
// every op and redistribution, plan/step_runs.h; nothing overlapped; the step simulator computes
// exposed time). communication_us: collective steps of redistributions; redistribution_us: their
// local steps (chunk, partition, pad, reorder).
struct CostSummary {
  double compute_us = 0;
  double communication_us = 0;
  double redistribution_us = 0;
  double total_us = 0;
  bool operator==(const CostSummary&) const = default;
};

struct MemorySummary {
  std::int64_t parameter_bytes = 0;  // per rank
  std::int64_t gradient_bytes = 0;
  std::int64_t optimizer_bytes = 0;
  std::int64_t activation_bytes = 0;  // peak live activations
  std::int64_t peak_bytes_per_rank = 0;
  std::int64_t limit_bytes = 0;  // 0: no limit
  bool operator==(const MemorySummary&) const = default;
};

struct Plan {
  std::string model;  // model name, e.g. "llama3-8b"
  std::int32_t layers = 0;
  // The step the plan prices: its checkpoint policy (a record: the ops' schedules say what
  // runs again), microbatches and gradient sync. The ops are one microbatch's.
  core::TrainingOptions training;
  redist::MeshDescription mesh;
  std::vector<PlanOp> ops;
  std::vector<PlanRedistribution> redistributions;  // by consumer, then slot
  // Under training.async_tp: the tp collectives fused with their matmuls (plan/async_tp.h), in
  // the order of their first collective; empty otherwise.
  std::vector<FusedMatmul> fused_matmuls;
  std::int64_t strategies = 0;  // options summed over ops
  SolverSummary solver;
  CostSummary cost;
  MemorySummary memory;
  std::vector<CollectiveSummary> collectives;
  std::vector<redist::Warning> warnings;
  bool operator==(const Plan&) const = default;
};

// Checks what readers rely on: unique op names; inputs name earlier ops; placements have one
// entry per mesh dim; redistributions name a valid consumer, slot and the producer in that slot,
// come in (consumer, slot) order, carry this plan's mesh, and each passes redist::check_plan;
// fused matmuls name existing ops and collective steps, each step in one of them, only under
// training.async_tp.
// Errors (kBadInput) name the field at fault by its path in the plan's document
// (core::field_error: "field 'redistributions[0].producer': ..."). The checks of a plan read back
// from a file, field by field, are in plan_check.h.
core::Status check_plan(const Plan& plan);

}  // namespace dtplan::plan
