#pragma once
// export_plan_problem(): steps 1-3 of plan_graph (plan_model.h) as one call: every node's
// strategies, the constraints with the pins of options.pins, and the selection problem priced by
// an edge coster, which is kept (lowering prices the chosen redistributions with it). `dtplan
// explain` rebuilds a plan's problem with it to price the alternatives of one op.
//
//   DTPLAN_TRY(PlanProblem pp, export_plan_problem(graph, mesh, profile, options));
//   solver->solve(pp.selection.problem, options.solve);

#include <memory>

#include "core/result.h"
#include "cost/hardware.h"
#include "graph/graph.h"
#include "mesh/device_mesh.h"
#include "strategy/edge_cost.h"
#include "strategy/graph_strategies.h"
#include "strategy/pin_rules.h"
#include "strategy/plan_model.h"
#include "strategy/selection_problem.h"

namespace dtplan::strategy {

struct PlanProblem {
  GraphStrategies strategies;
  PinMatch pinned;  // empty without options.pins
  SelectionProblem selection;
  std::unique_ptr<EdgeCoster> coster;  // priced the problem's edges; never null on success
  double enumerate_s = 0;              // step 1's time (the rest is the export's)
};

// `labels`: kPinned for a problem only the exact solver solves (plan_graph's default), kAll
// where every strategy must stay a label (explain).
// @pre as plan_graph. Errors as plan_graph's steps 1-3 (pin conflicts name the rules).
core::Result<PlanProblem> export_plan_problem(const graph::Graph& graph,
                                              const mesh::DeviceMesh& mesh,
                                              const cost::HardwareProfile& profile,
                                              const ModelPlanOptions& options,
                                              LabelScope labels = LabelScope::kAll);

}  // namespace dtplan::strategy
