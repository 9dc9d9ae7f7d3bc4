#pragma once
// Helpers shared by the selection, lowering and plan_model tests: the tiny LLaMA3 graph, mesh
// contexts with flattened meshes, edge costers on the h100-dgx profile, and small hand-built
// graphs.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "redist/cost_model.h"
#include "redist/mesh_context.h"
#include "strategy/edge_cost.h"
#include "strategy/graph_strategies.h"
#include "strategy/plan_model.h"

namespace dtplan::strategy::testing {

// configs/models/llama3-tiny.json's configuration with `layers` layers, built (REQUIREs success).
const graph::Graph& tiny_llama3_graph(std::int64_t layers);

// A mesh context on the h100-dgx profile, 8 GPUs per node (REQUIREs success).
redist::MeshContext context(std::vector<std::int64_t> shape, std::vector<std::string> names,
                            std::vector<std::vector<std::string>> flatten = {});

// An edge coster over `ctx` with cost model `model`.
std::unique_ptr<EdgeCoster> make_coster(redist::MeshContext ctx,
                                        redist::CostModelKind model = redist::CostModelKind::kNccl);

// plan_graph on the h100-dgx profile (REQUIREs success).
ModelPlan plan_or_fail(const graph::Graph& graph, const redist::MeshContext& ctx,
                       const ModelPlanOptions& options);

// The index of the strategy of `op` printed as `text` (format_strategy), or -1.
std::int32_t strategy_index(const OpStrategy& op, const std::string& text);

}  // namespace dtplan::strategy::testing
