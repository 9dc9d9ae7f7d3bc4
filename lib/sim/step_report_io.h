#pragma once
// The JSON of `dtplan simulate` on a whole-model plan (step_report.h), always complete:
//   {"kind": "model", "model", "ranks", "redistributions": [{index, consumer, slot, producer,
//    src, dst, steps, collectives, cost_us, verify?, verify_skipped?}], "totals": {...},
//    "timeline": {...}, "throughput"?: {...}, "memory": {...}, "warnings": [...]}
// (docs/schemas holds the schema).

#include <nlohmann/json.hpp>

#include "sim/step_report.h"
#include "sim/verify.h"

namespace dtplan::sim {

// The document above; "timeline" names the trace and HTML files when they were written.
nlohmann::ordered_json to_json(const StepReport& report);

// The timeline as JSON: {step_time_us, compute_us, communication_us, exposed_communication_us,
// critical_rank, ranks, tasks, streams: [{name, busy_us}], rank_classes: [{rank, end_us, ...}],
// critical_path: [{name, kind, stream, rank, start_us, end_us, binding}]}.
nlohmann::ordered_json timeline_json(const Timeline& timeline);

// {tokens_per_s_per_gpu, mfu, model_flops_per_token, tokens_per_step}.
nlohmann::ordered_json throughput_json(const Throughput& rate);

// A data run's verification: {ranks, wrong_elements, replicas_bitwise_equal, elements, values,
// exact, replica_sets, differing_replica_sets, max_replica_variants, max_error, collectives,
// first_wrong?}.
nlohmann::ordered_json verify_json(const VerifyReport& report);

}  // namespace dtplan::sim
