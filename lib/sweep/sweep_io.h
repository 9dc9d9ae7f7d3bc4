#pragma once
// The JSON form of a sweep (what `dtplan sweep --json` prints): the setup, then `results`, best
// first.
//
//   {"model": "llama3-8b", "layers": 32, "hardware": "h100-dgx", "world": 64,
//    "gpus_per_node": 8, "dims": [1, 2, 3], "memory_limit_bytes": 85899345920,
//    "evaluator": "...", "candidates": 28,
//    "results": [{"rank": 1, "shape": [8, 8], "names": ["dp", "tp"], "flatten": [["dp", "tp"]],
//                 "step_time_us": ..., "compute_us": ..., "communication_us": ...,
//                 "exposed_us": ..., "other_us": ..., "memory_bytes_per_rank": ...,
//                 "fits_memory": true, "feasible": true, "optimal": true,
//                 "tp_within_node": true, "note": ""}, ...]}

#include <nlohmann/json_fwd.hpp>

#include "sweep/sweep_result.h"

namespace dtplan::sweep {

nlohmann::ordered_json sweep_json(const SweepResult& result);

}  // namespace dtplan::sweep
