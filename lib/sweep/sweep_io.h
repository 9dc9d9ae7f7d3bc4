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
// A failed row (SweepRow::error) has feasible false and one more field last, "error": its message.
//
// And the exact text form of a point's outcome (point_runner.h), which processes send each
// other and --resume records: one JSON object whose doubles round-trip bit for bit, like every
// other field (but for control characters in a note or error, which come back as "<U+XXXX>",
// the way the reports print them).
//
//   point_outcome_to_string(o) ==
//     R"({"step_time_us":812345.6,...,"feasible":true,"optimal":true,"note":"","error":""})"
//   point_outcome_from_string(point_outcome_to_string(o), "x").value() == o

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "core/result.h"
#include "sweep/point_runner.h"
#include "sweep/sweep_result.h"

namespace dtplan::sweep {

nlohmann::ordered_json sweep_json(const SweepResult& result);

// One line of JSON, no newline. @pre the evaluation's doubles are finite (check_evaluation()).
std::string point_outcome_to_string(const PointOutcome& outcome);

// The inverse of point_outcome_to_string. Errors: kBadInput naming `source` (and the field) for
// text that is not such an object.
core::Result<PointOutcome> point_outcome_from_string(std::string_view text,
                                                     std::string_view source);

}  // namespace dtplan::sweep
