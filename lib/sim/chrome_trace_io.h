#pragma once
// The step timeline as a Chrome / Perfetto trace (the JSON "Trace Event Format", loadable in
// chrome://tracing and ui.perfetto.dev): one process per kept rank (pid = global rank, named
// "rank R"), one thread per stream (tid = stream index, named "compute", "comm:tp", ...), one
// complete event (ph "X", ts and dur in microseconds) per task.
//
//   {"traceEvents": [
//     {"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "rank 0"}},
//     {"name": "thread_name", "ph": "M", "pid": 0, "tid": 1, "args": {"name": "comm:dp"}},
//     {"name": "wq[1].0:all_gather", "cat": "collective", "ph": "X", "ts": 12.5, "dur": 40.0,
//      "pid": 0, "tid": 1, "args": {"task": 7, "op": 3, "collective": "all_gather",
//      "bytes": 1048576, "group_size": 8, "alone_us": 30.0, "latency_us": 0.0,
//      "prefetched": true, "critical": false}}, ...],
//    "displayTimeUnit": "ns",
//    "otherData": {"step_time_us": ..., "critical_rank": ..., "exposed_communication_us": ...}}
// Events come in Timeline::events order (rank, stream, start, task); output is byte-for-byte
// deterministic for equal timelines.

#include <filesystem>
#include <string>

#include "core/result.h"
#include "sim/timeline.h"

namespace dtplan::sim {

// The trace as JSON text, newline-ended.
std::string chrome_trace_json(const Timeline& timeline);

// Writes chrome_trace_json(timeline) to `path` by core::write_output_file; errors name the file.
core::Status write_chrome_trace(const Timeline& timeline, const std::filesystem::path& path);

}  // namespace dtplan::sim
