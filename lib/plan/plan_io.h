#pragma once
// plan::Plan as JSON: what `dtplan plan --out plan.json` writes and `dtplan simulate --plan` /
// `dtplan replay --plan` read. The mesh is written once; each redistribution carries the fields
// of a `dtplan redistribute --json` document but "mesh" (redist/redist_plan_io.h).
//
//   {"format": "dtplan-plan", "version": 1,
//    "model": "llama3-8b", "layers": 32,
//    "training": {"checkpoint": "selective_op", "grad_accum": 1, "grad_sync": "every_microbatch",
//                 "compile": false, "float8": "none", "async_tp": false},
//    "mesh": {...as in redist_plan_io.h...},
//    "nodes": 8152, "strategies": 91234,
//    "solver": {"name": "exact", "time_s": 0.21, "objective_us": 123.4, "lower_bound_us": 123.4,
//               "optimal": true},
//    "cost": {"compute_us": 1.0, "communication_us": 2.0, "redistribution_us": 0.5,
//             "total_us": 3.5},
//    "memory": {"parameter_bytes": 1, "gradient_bytes": 1, "optimizer_bytes": 2,
//               "activation_bytes": 3, "peak_bytes_per_rank": 7, "limit_bytes": 0},
//    "collectives": [{"collective": "all_gather", "mesh_dims": [0], "flattened_mesh": null,
//                     "group_size": 8, "count": 64, "bytes": 1024, "time_us": 10.5}],
//    "warnings": [{"reason": ..., "mesh_dims": [...], "message": ...}],
//    "ops": [{"name": "tokens", "op": "placeholder", "phase": "forward", "layer": -1,
//             "role": "input", "inputs": [], "shape": [16, 8192], "dtype": "i64",
//             "placements": "S(0),R", "strategy": "...", "options": 8, "compute_us": 0},
//            ... "schedule": "recompute" (written when not "microbatch", plan.h OpSchedule)],
//    "redistributions": [{"consumer": 12, "slot": 1, "producer": 4, "tensor": {...},
//                         "src": ..., "dst": ..., "steps": [...], ...}],
//    "fused_matmuls": [{"kind": "fused_all_gather_matmul", "matmuls": [45, 49, 53],
//                       "collectives": [{"redistribution": 3, "step": 0}], "chunks": 2,
//                       "chunk_bytes": 2048, "copy_us": 0.0055, "fused_us": 42}]}
//    (fused_matmuls written under training.async_tp only, plan/fused_matmul.h)
//
// Reading checks every field (errors name the source and the field path, kBadInput), rebuilds
// the mesh once, and checks the plan (plan::check_plan) and every field against the others
// (plan_check.h). The costs are re-priced from the hardware profile by check_plan_prices
// (plan_check.h), which the commands call once they have loaded the profile the plan names.
// is_model_plan_json tells a whole-model plan from a redistribution plan (the "format" field).
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "core/result.h"
#include "plan/plan.h"

namespace dtplan::plan {

inline constexpr std::string_view kPlanFormat = "dtplan-plan";
inline constexpr int kPlanVersion = 1;

// The plan's `memory` object (per rank, bytes): parameters, gradients, optimizer state,
// activations, peak and limit; `dtplan simulate` prints it beside the step time.
nlohmann::ordered_json memory_json(const MemorySummary& memory);

// Every field but "ops" and "redistributions": what `dtplan plan --json` reports.
nlohmann::ordered_json plan_summary_json(const Plan& plan);

// The whole document above (key order as written).
nlohmann::ordered_json plan_json(const Plan& plan);

// plan_json pretty-printed (1-space indent keeps large plans small), newline-ended.
// @post read_plan_json(plan_to_json(p), s) == p for every plan that passes check_plan.
std::string plan_to_json(const Plan& plan);

// True when `text` is a JSON object whose "format" is kPlanFormat (parses the text).
bool is_model_plan_json(std::string_view text);

core::Result<Plan> read_plan_json(std::string_view text, std::string_view source);

// Reads a plan file; an unreadable file is kBadInput naming the path.
core::Result<Plan> load_plan_file(const std::string& path);

// Writes plan_to_json to `path` by core::write_output_file (whole, or not at all).
core::Status save_plan_file(const Plan& plan, const std::string& path);

}  // namespace dtplan::plan
