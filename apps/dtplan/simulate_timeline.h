#pragma once
// The step-timeline part of `dtplan simulate` (the command itself lives in cmd_simulate.cc):
// its flags, and a report of sim::simulate_step for a plan: the step summary, the per-stream
// busy table of the critical rank, the communication on the critical path, and the
// Chrome/Perfetto trace with --trace, the HTML page with --html.
//
//   TimelineFlags flags;                 // in the command's Options
//   add_timeline_flags(app, flags);      // --trace FILE --all-ranks --trace-ranks N
//                                        // --prefetch N --no-contention
//   DTPLAN_TRY(sim::Timeline tl, run_timeline(plan, flags));   // then timeline_json/_text
//
// The plan's hardware profile (plan.mesh.hardware, found like --hardware) gives the NICs per
// node and the latency share of each collective; a plan without one is simulated with one NIC
// per GPU and all-bandwidth collectives.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>

#include "core/result.h"
#include "plan/plan.h"
#include "sim/throughput.h"
#include "sim/timeline.h"

namespace CLI {
class App;
}

namespace dtplan::cli {

struct TimelineFlags {
  std::string trace;             // --trace FILE: write the Chrome/Perfetto trace there
  std::string html;              // --html FILE: write the step as an HTML page (timeline_html.h)
  bool all_ranks = false;        // --all-ranks: every rank in the trace
  std::int32_t trace_ranks = 4;  // --trace-ranks N: representative rank classes in the trace
  std::int32_t prefetch = 1;     // --prefetch N: all-gather prefetch depth in blocks, -1 = any
  bool no_contention = false;    // --no-contention: collectives never slow each other
};

// Registers the flags above on `app`, bound to `flags` (which must outlive parsing).
void add_timeline_flags(CLI::App& app, TimelineFlags& flags);

// The simulator's options for `plan` under `flags` (loads the plan's hardware profile).
// Errors (kBadInput) name the plan's hardware field.
core::Result<sim::TimelineOptions> timeline_options(const plan::Plan& plan,
                                                    const TimelineFlags& flags);

// The timeline as JSON: {step_time_us, compute_us, communication_us, exposed_communication_us,
// critical_rank, ranks, tasks, streams: [{name, busy_us}], rank_classes: [{rank, end_us, ...}],
// critical_path: [{name, kind, stream, rank, start_us, end_us, binding}]}.
nlohmann::ordered_json timeline_json(const sim::Timeline& timeline);

// The tables of the text report, each line ending in '\n'.
std::string timeline_text(const sim::Timeline& timeline);

// Tokens/s per GPU and MFU of the simulated step (sim/throughput.h) against the profile's dense
// bf16 peak; none for a plan without token input or a profile without a bf16 peak.
std::optional<sim::Throughput> step_throughput(const plan::Plan& plan,
                                               const sim::Timeline& timeline,
                                               const cost::HardwareProfile& profile);

// {tokens_per_s_per_gpu, mfu, model_flops_per_token, tokens_per_step}.
nlohmann::ordered_json throughput_json(const sim::Throughput& rate);

// "# throughput: ... tokens/s per GPU, MFU ...% (...)" and a line of its terms.
std::string throughput_text(const sim::Throughput& rate);

// "# memory per rank (the plan's): peak ... GiB: parameters ..., gradients ..., optimizer ...,
// activations ..." (the plan's memory model: a lower bound on what the allocator reserves).
std::string memory_text(const plan::MemorySummary& memory);

// Simulates `plan` and writes --trace and --html if asked (errors name the flag or the plan's
// field).
core::Result<sim::Timeline> run_timeline(const plan::Plan& plan, const TimelineFlags& flags);

}  // namespace dtplan::cli
