#include "strategy/step_schedule.h"

#include "graph/recompute.h"

namespace dtplan::strategy {

std::vector<plan::OpSchedule> op_schedules(const graph::Graph& graph,
                                           const core::TrainingOptions& training) {
  std::vector<plan::OpSchedule> out(graph.size(), plan::OpSchedule::kMicrobatch);
  const std::vector<char> gradient = graph::gradient_nodes(graph);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (gradient[i] != 0) out[i] = plan::OpSchedule::kGradient;
  }
  if (training.checkpoint == core::CheckpointPolicy::kNone) return out;
  const std::vector<char> recomputed = graph::recomputed_nodes(graph);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (recomputed[i] != 0) out[i] = plan::OpSchedule::kRecompute;
  }
  return out;
}

}  // namespace dtplan::strategy
