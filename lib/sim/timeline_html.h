#pragma once
// The HTML page of a simulated step (`dtplan simulate --html FILE`): one self-contained file
// (inline CSS and SVG, no script, no external reference) that opens in a browser offline:
//   - the step's figures (step time, compute, communication, exposed communication, the
//     critical rank, tasks);
//   - chart `timeline-chart`: the critical rank's step as a Gantt chart (report/gantt_chart.h),
//     one row per stream (compute, then each communication stream), a rectangle per task (tiny
//     neighbours merged by the chart's rule, each rectangle's data-n saying how many tasks it
//     holds, data-critical how many are on the critical path), coloured by kind (compute,
//     local copy, or the collective), rectangles holding critical-path tasks outlined (class
//     `critical`);
//   - chart `busy-chart`: busy time per stream of the critical rank, the step time as a line;
//   - chart `exposed-chart`: exposed communication by collective (exposed_by_collective()).
// The page is XML apart from its doctype and the same timeline gives the same bytes.
//
//   std::string page = timeline_html(timeline, "llama3-8b");

#include <string>
#include <string_view>
#include <vector>

#include "report/bar_chart.h"
#include "report/gantt_chart.h"
#include "sim/timeline.h"

namespace dtplan::sim {

// Exposed communication of one collective kind on the critical rank.
struct ExposedShare {
  std::string name;  // "all_gather", ..., or "local" (chunk / partition copies on a comm stream)
  double exposed_us = 0;  // the time its tasks ran while the compute stream was idle
  std::int64_t tasks = 0;
  bool operator==(const ExposedShare&) const = default;
};

// Per collective kind (name order), over the critical rank's tasks on communication streams:
// each task's time outside the compute stream's busy intervals. Concurrent collectives each
// count their own, so the sum can exceed Timeline::exposed_communication_us (a union).
std::vector<ExposedShare> exposed_by_collective(const Timeline& timeline);

// The Gantt chart of the critical rank (times in ms).
report::GanttChart timeline_gantt(const Timeline& timeline);

// Busy time per stream of the critical rank (ms), the step time as the limit line.
report::BarChart stream_busy_chart(const Timeline& timeline);

// The page; `model` names the plan's model in the title.
std::string timeline_html(const Timeline& timeline, std::string_view model);

}  // namespace dtplan::sim
