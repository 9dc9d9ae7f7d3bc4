#pragma once
// op_schedules(): how each graph node runs in a training step (plan::OpSchedule): kRecompute for
// the nodes activation checkpointing runs again (graph::recomputed_nodes, under a checkpoint
// policy other than none), kGradient for the nodes on a weight gradient's way out
// (graph::gradient_nodes), kMicrobatch otherwise. The selection problem multiplies costs by the
// runs these imply (plan/step_runs.h) and the lowering writes them into the plan, so the
// solver's objective is the plan's cost per step.
//
//   auto s = op_schedules(graph, {.checkpoint = core::CheckpointPolicy::kFull});
//   s[index_of(*graph.find("layers.0.attention.wq.einsum"))] == plan::OpSchedule::kRecompute

#include <vector>

#include "core/training.h"
#include "graph/graph.h"
#include "plan/plan.h"

namespace dtplan::strategy {

// One schedule per graph node.
std::vector<plan::OpSchedule> op_schedules(const graph::Graph& graph,
                                           const core::TrainingOptions& training);

}  // namespace dtplan::strategy
