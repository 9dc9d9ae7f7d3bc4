#pragma once
// ReplayReport as JSON: what `dtplan replay --json` prints and `--out` writes, and what
// `dtplan calibrate --replay` reads.
//
//   {"plan": "plan.json", "kind": "redistribute", "model": null, "backend": "mpi",
//    "launcher": "mpirun (Open MPI)", "world": 4, "processes": 4, "hardware": "h100-dgx",
//    "gpus_per_node": 8, "timing": {"warmup": 5, "iters": 20, "launches": 1,
//    "statistic": "median"},
//    "collectives": [{"collective": "all_reduce", "op": "sum", "mesh_dims": [0, 2],
//      "flattened_mesh": "A_C", "group_size": 4, "groups": [[0, 1, 4, 5], [2, 3, 6, 7]],
//      "nodes": 1, "min_ranks_per_node": 4, "max_ranks_per_node": 4, "dtype": "f32",
//      "bytes": 16384, "size": 16384, "count": 1, "predicted_us": 12.3, "measured_us": 41.0,
//      "min_us": 39.5, "max_us": 60.2, "predicted_busbw": 2.0, "measured_busbw": 0.6,
//      "error": -0.7, "check": {"elements": 16384, "wrong_elements": 0, "skipped": false},
//      "first_use": "redistribute P(sum),R,P(sum) -> R,R,R step 0"}],
//    "totals": {"predicted_us": 12.3, "measured_us": 41.0, "error": -0.7},
//    "verify": {"ranks": 8, "redistributions": 1, "skipped": 0, "elements": 32768,
//               "wrong_elements": 0, "fake_mismatches": 0, "replicas_bitwise_equal": true,
//               "replica_sets": 1, "differing_replica_sets": 0,
//               "collectives": {"elements": 32768, "wrong_elements": 0}},
//    "compute": null}
//
// With --compute, "compute" is {"skipped": 0, "gemms": [{"op": 2, "name": "y", "m": 8192,
// "n": 4096, "k": 4096, "dtype": "bf16", "count": 32, "predicted_us": 410.2, "measured_us": 520.0,
// "min_us": 515.0, "max_us": 530.1, "error": -0.21, "measured_tflops": 528.6}]}.
//
// "op" is null for collectives that do not reduce, "flattened_mesh" null on one mesh dim, "model"
// null for a redistribute plan. Sizes in bytes ("bytes" the plan's per-rank buffer, "size" S as
// nccl-tests defines it), times in us, busbw in GB/s (1e9 B/s).

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "core/result.h"
#include "replay/replay_report.h"

namespace dtplan::replay {

// The document above (key order as written).
nlohmann::ordered_json report_json(const ReplayReport& report);

// report_json pretty-printed (2-space indent), newline-ended.
// @post read_report_json(report_to_json(r), s) == r for every report (times that are finite).
std::string report_to_json(const ReplayReport& report);

// Errors (kBadInput) name the source and the field path: "r.json: field 'collectives[0].size':
// expected an integer".
core::Result<ReplayReport> read_report_json(std::string_view text, std::string_view source);

// Reads a results file; an unreadable file is kBadInput naming the path.
core::Result<ReplayReport> load_report_file(const std::string& path);

}  // namespace dtplan::replay
