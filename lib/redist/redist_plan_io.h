#pragma once
// RedistPlan as JSON: what `dtplan redistribute --json` prints and `dtplan simulate --plan` reads.
//
//   {"mesh": {"shape": [2,2,2], "names": ["A","B","C"], "ranks": [0,...,7],
//             "layouts": ["2:4","2:2","2:1"],
//             "flattened": [{"name": "A_C", "mesh_dims": [0,2], "layout": "((2,2)):((4,1))"}],
//             "gpus_per_node": 8, "hardware": "h100-dgx"},
//    "tensor": {"shape": [16,16,16], "dtype": "f32"},
//    "src": "P(sum),R,P(sum)", "dst": "R,R,R",
//    "planner": "greedy", "requested_planner": "auto", "model": "nccl", "merge": true,
//    "steps": [{"collective": "all_reduce", "mesh_dims": [0,2], "flattened_mesh": "A_C",
//               "group_size": 4, "bytes": 16384, "cost_us": 12.3, "algorithm": "NVLS",
//               "protocol": "Simple", "src": "P(sum)", "dst": "R", "avg_scale": 1,
//               "state": "R,R,R"}],
//    "comm_counts": {"all_gather": 0, "all_reduce": 1, "reduce_scatter": 0, "all_to_all": 0},
//    "total_cost_us": 12.3,
//    "warnings": [{"reason": "no_flattened_mesh", "mesh_dims": [0,2], "message": "..."}],
//    "trace": "P(sum)RP(sum)-->RRR"}
//
// "names" is null without dim names, "flattened_mesh", "algorithm" and "protocol" are null when
// there is none. Reading checks every field (errors name the source and the field path, kBadInput),
// rebuilds the mesh (build_described_mesh), checks that flattened steps name a flattened mesh over
// their dims, and checks the plan (check_plan) and every field against the others
// (redist_plan_check.h: the mesh description, bytes, group sizes, costs, totals). The costs are
// re-priced from the hardware profile by check_plan_prices (redist_plan_check.h), which the
// commands call once they have loaded the profile the plan names.

#include <string>
#include <string_view>

#include "core/json_io.h"
#include "core/result.h"
#include "redist/mesh_context.h"
#include "redist/redist_plan.h"

namespace dtplan::redist {

// The document above (key order as written).
nlohmann::ordered_json plan_json(const RedistPlan& plan);

// plan_json pretty-printed (2-space indent), newline-ended.
// @post read_plan_json(plan_to_json(p), s) == p for every plan a Planner returns.
std::string plan_to_json(const RedistPlan& plan);

core::Result<RedistPlan> read_plan_json(std::string_view text, std::string_view source);

// Reads a plan file; an unreadable file is kBadInput naming the path.
core::Result<RedistPlan> load_plan_file(const std::string& path);

// Pieces for documents that embed plans (plan/plan_io.h: a whole-model plan holds the mesh once
// and every redistribution without it). `base` is the field path of the object read ("" at the
// top), used in error messages.
nlohmann::ordered_json mesh_description_json(const MeshDescription& mesh);
core::Result<MeshDescription> read_mesh_description(const core::JsonReader& r,
                                                    const nlohmann::ordered_json& j,
                                                    const std::string& base);
nlohmann::ordered_json warning_json(const Warning& w);
core::Result<Warning> read_warning(const core::JsonReader& r, const nlohmann::ordered_json& w,
                                   const std::string& path);
// Adds every field of plan_json but "mesh" to `doc`.
void add_plan_body(const RedistPlan& plan, nlohmann::ordered_json& doc);
// Reads those fields from `doc` (at `base`) for a plan on `mesh` (`ctx` built from it), then
// check_plan.
core::Result<RedistPlan> read_plan_body(const core::JsonReader& r,
                                        const nlohmann::ordered_json& doc, const std::string& base,
                                        const MeshDescription& mesh, const MeshContext& ctx);

}  // namespace dtplan::redist
