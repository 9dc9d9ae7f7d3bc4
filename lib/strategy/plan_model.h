#pragma once
// plan_graph() / plan_model(): the whole `dtplan plan` pipeline as one library call, for the CLI
// and for callers such as `dtplan sweep`:
//   1. enumerate every node's strategies on the mesh (graph_strategies.h);
//   2. constraints (constraints.h): the default pins and ties, the memory budget;
//   3. export the selection problem (selection_problem.h) with edge costs from redist::Planner
//      under the chosen cost model (edge_cost.h);
//   4. solve it with solve::make_solver(options.solver): kExact (optimal, with a certificate),
//      kGreedy (DTensor-style: nodes in topological order, each the cheapest strategy given
//      its producers' choices, lowest index on ties, see solve/solver.h) or kIlp (CBC);
//   5. lower the labelling to a plan::Plan (lower_plan.h) and fuse chained all-gathers on a
//      flattened mesh (fuse_allgathers.h).
//
//   auto mesh = mesh::load_mesh_file("configs/meshes/8x8.json").value();
//   auto model = graph::load_model("configs/models/llama3-8b.json", {.layers = 2}).value();
//   auto profile = cost::load_hardware("h100-dgx", ...).value();
//   plan::Plan p = plan_model(model.graph, mesh.root, profile, {}).value();
//   p.solver.optimal && p.cost.total_us == p.solver.objective_us (up to rounding)
//
// With options.pins, step 2 adds the rules' pins (pin_rules.h) and errors name the rule.
// Errors: kBadInput (unknown solver or cost model, a graph the strategies reject), kUnsupported
// (infeasible: a memory limit below the minimum, whose message gives the minimum per rank; a
// pin no strategy meets), kBackendMissing ("ilp" without CBC).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "cost/hardware.h"
#include "graph/graph.h"
#include "mesh/device_mesh.h"
#include "plan/plan.h"
#include "redist/cost_model.h"
#include "solve/solver.h"
#include "strategy/enumerate.h"
#include "strategy/pin_rules.h"
#include "strategy/selection_problem.h"

namespace dtplan::strategy {

// solve::SolveOptions with max_table_entries = 2^25 (see ModelPlanOptions::solve).
solve::SolveOptions default_solve_options();

struct ModelPlanOptions {
  solve::SolverKind solver = solve::SolverKind::kExact;
  // Per-rank bytes for parameters + gradients + optimizer state + activations; nullopt:
  // AutoParallel's default parameter budget (constraints.h).
  std::optional<std::int64_t> memory_limit_bytes;
  redist::CostModelKind cost_model = redist::CostModelKind::kNccl;
  std::optional<std::int64_t> gpus_per_node;  // default: the profile's
  // kFree by default: AutoParallel's formulation (a view may redistribute its input); simplify()
  // folds the chains either way, so the reduced problem is as small as with kTie.
  FollowerMode followers = FollowerMode::kFree;
  bool fuse_allgathers = true;
  EnumerateOptions enumerate;
  // max_table_entries defaults to 2^25 here (solve's default is 2^22): the joint LLaMA3 graph
  // has elimination width 5-6 over ~15 labels, and one large message is far cheaper than
  // branch-and-bound over a conditioned cutset (8B on 8x8: minutes -> seconds).
  solve::SolveOptions solve = default_solve_options();
  // A user's plan (--parallelize): hard pins on the nodes its rules match, replacing the default
  // pins there; empty: the free optimum.
  PinSet pins;
  // With pins and the exact solver: drop the strategies the bound proves no optimal plan takes
  // before pricing (bound_pruning.h). kNone for pins that fix only a few nodes (the data layout
  // of --compare-optimal), where the bound would price most edges twice for little.
  LabelPruning pruning = LabelPruning::kBound;
  // The training step priced (graph::Model::training): recomputation, microbatches, gradient
  // sync; the graph is one microbatch's.
  core::TrainingOptions training{};
};

// Where the time went and how big the problem was.
struct PlanStats {
  double enumerate_s = 0;
  double export_s = 0;  // constraints, edge costs, problem
  double solve_s = 0;
  double lower_s = 0;  // lowering and fusion
  double total_s = 0;
  solve::ProblemSize problem;
  std::int64_t distinct_ops = 0;    // distinct enumerations
  std::int64_t pairs_priced = 0;    // distinct (source, target) specs planned
  std::int64_t matrices_built = 0;  // distinct edge matrices
  std::int64_t labels_pruned = 0;   // strategies the pinned problem's bound dropped (export)
  std::int64_t fused_allgathers = 0;
  std::vector<std::int64_t> pin_matches;  // per ModelPlanOptions::pins rule: the nodes it pinned
};

struct ModelPlan {
  plan::Plan plan;
  PlanStats stats;
};

// @pre `mesh` is a root mesh with its flattened meshes created (mesh::build_mesh does this).
core::Result<ModelPlan> plan_graph(const graph::Graph& graph, const mesh::DeviceMesh& mesh,
                                   const cost::HardwareProfile& profile,
                                   const ModelPlanOptions& options = {});

// plan_graph(...).plan.
core::Result<plan::Plan> plan_model(const graph::Graph& graph, const mesh::DeviceMesh& mesh,
                                    const cost::HardwareProfile& profile,
                                    const ModelPlanOptions& options = {});

}  // namespace dtplan::strategy
