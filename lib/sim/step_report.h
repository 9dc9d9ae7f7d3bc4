#pragma once
// The report of `dtplan simulate` on a whole-model plan: what the simulation of its
// redistributions (plan_simulation.h) and of its training step (timeline.h) computed, as the
// command prints it. The text: the headline (simulated step time), the throughput and the
// memory per rank, one row per redistribution, the totals (and the verify totals of a data
// run), then the step timeline's tables (summary, busy time per stream of the critical rank, the
// critical path by task kind, the communication on the critical path), the files written and
// the plan's warnings. The JSON (step_report_io.h) holds the same figures, always complete.
//
// A whole-model plan has thousands of redistributions and of communications on the critical
// path, so by default the text lists the kReportTopRows costliest redistributions (by time, then
// by index) and the kReportTopRows longest communications on the critical path (by duration,
// then by start, then by task name, then by rank), each list in that order and followed by a
// line that says how many rows it left out; ReportDetail::kFull (the default here, `--detail` in
// the command) lists every row in plan and path order. A list that fits is printed whole either
// way.
//
//   const StepReport r = make_step_report(plan, simulation, timeline, rate, /*data=*/false);
//   std::string text = to_text(r, ReportDetail::kTop);

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "plan/plan.h"
#include "sim/plan_simulation.h"
#include "sim/throughput.h"
#include "sim/timeline.h"

namespace dtplan::sim {

// What a whole-model simulation computed, borrowed: the plan, simulation and timeline must
// outlive the report.
struct StepReport {
  const plan::Plan* plan = nullptr;
  const ModelSimulation* simulation = nullptr;  // of plan's redistributions, in its order
  const Timeline* timeline = nullptr;           // of plan's training step
  std::optional<Throughput> throughput;         // none: no token input or no bf16 peak
  double cost_us = 0;      // the redistributions' summed cost, nothing overlapped
  bool data = false;       // the redistributions ran on data: the verify totals are reported
  std::string trace_file;  // where the Chrome trace was written (empty: not written)
  std::string html_file;   // where the HTML page was written (empty: not written)
};

// The report of `simulation` and `timeline` of `plan`, cost_us summed over its redistributions.
StepReport make_step_report(const plan::Plan& plan, const ModelSimulation& simulation,
                            const Timeline& timeline, std::optional<Throughput> throughput,
                            bool data);

// How much of the long lists the text shows (see above).
enum class ReportDetail : std::uint8_t { kTop, kFull };

// Rows of each long list the text shows with ReportDetail::kTop.
inline constexpr std::size_t kReportTopRows = 10;

// The text report described above, each line ending in '\n'.
std::string to_text(const StepReport& report, ReportDetail detail = ReportDetail::kFull);

// The summary of the critical rank (the first rank's when none matches).
// @pre !timeline.ranks.empty().
const RankSummary& critical_summary(const Timeline& timeline);

// The step timeline's tables of the text report, each line ending in '\n'.
std::string timeline_text(const Timeline& timeline, ReportDetail detail = ReportDetail::kFull);

// "# throughput: ... tokens/s per GPU, MFU ...% (...)" and a line of its terms.
std::string throughput_text(const Throughput& rate);

// "# memory per rank (the plan's): peak ... GiB: parameters ..., gradients ..., optimizer ...,
// activations ..." (the plan's memory model: a lower bound on what the allocator reserves).
std::string memory_text(const plan::MemorySummary& memory);

}  // namespace dtplan::sim
