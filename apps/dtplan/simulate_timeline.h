#pragma once
// The step-timeline part of `dtplan simulate` (the command itself lives in cmd_simulate.cc):
// its flags, sim::simulate_step of a plan with the Chrome/Perfetto trace written with --trace
// and the HTML page with --html, and the step's throughput (the report: sim/step_report.h).
//
//   TimelineFlags flags;                 // in the command's Options
//   add_timeline_flags(app, flags);      // --trace FILE --all-ranks --trace-ranks N
//                                        // --prefetch N --no-contention
//   DTPLAN_TRY(sim::Timeline tl, run_timeline(plan, flags));   // reported by sim/step_report.h
//
// The plan's hardware profile (plan.mesh.hardware, found like --hardware) gives the NICs per
// node and the latency share of each collective; a plan without one is simulated with one NIC
// per GPU and all-bandwidth collectives.

#include <cstdint>
#include <optional>
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

// Tokens/s per GPU and MFU of the simulated step (sim/throughput.h) against the profile's dense
// bf16 peak; none for a plan without token input or a profile without a bf16 peak.
std::optional<sim::Throughput> step_throughput(const plan::Plan& plan,
                                               const sim::Timeline& timeline,
                                               const cost::HardwareProfile& profile);

// Simulates `plan` and writes --trace and --html if asked (errors name the flag or the plan's
// field).
core::Result<sim::Timeline> run_timeline(const plan::Plan& plan, const TimelineFlags& flags);

}  // namespace dtplan::cli
