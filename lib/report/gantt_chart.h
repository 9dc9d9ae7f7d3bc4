#pragma once
// A Gantt chart as inline SVG (the step timeline of `dtplan simulate --html`): one row per lane
// (a stream), each task a rectangle from its start to its end on a shared time axis, rectangles
// holding a task of the critical path drawn with class `critical` (an outline), a legend and a
// time axis with round ticks. Every task rectangle has class `task`, its series class, `data-n`
// (how many tasks it stands for, merge rule below) and `data-critical` (how many of them are on
// the critical path), so the rectangles always add up to the tasks given.
//
// Merge rule (bounds the file whatever the task count): on each row, in the order given (by
// start), a task narrower than one pixel joins the rectangle before it when that rectangle is
// also made of such tasks and began in the same whole-pixel column (floor of its x). The
// rectangle spans its first start to its last end, is drawn at least kMinTaskPixels wide, takes
// the series of its first task, and its tooltip says how many tasks it holds. So a row has at
// most one merged rectangle per pixel column besides its tasks of a pixel or more (which do not
// overlap on a stream): at most about twice the plot's width in pixels.
//
//   GanttChart g{.id = "timeline", .title = "Step of rank 0", .unit = "ms", .span = 812.3};
//   g.rows.push_back({.label = "compute", .tasks = {{0.0, 1.5, "compute", "op 3", false}}});
//   std::string svg = render_gantt_chart(g);  // "<svg id=\"timeline\" ...>...</svg>"

#include <cstdint>
#include <string>
#include <vector>

#include "report/svg.h"

namespace dtplan::report {

// The narrowest a task rectangle is drawn, in pixels (a merged run or a very short task).
inline constexpr double kMinTaskPixels = 0.5;

struct GanttTask {
  double start = 0;       // in the chart's unit, >= 0
  double end = 0;         // >= start
  std::string css_class;  // the series, e.g. "compute", "all_gather"
  std::string title;      // the tooltip, e.g. "layers.0.attn.wq  12.0 - 13.5 ms"
  bool critical = false;  // on the critical path
  bool operator==(const GanttTask&) const = default;
};

struct GanttRow {
  std::string label;             // e.g. "comm:dp"
  std::vector<GanttTask> tasks;  // by start
  bool operator==(const GanttRow&) const = default;
};

struct GanttChart {
  std::string id{};
  std::string title{};
  std::string unit{};  // the time axis' unit, e.g. "ms"
  double span = 0;     // the axis covers [0, round_axis(max(span, last end), 10).max]
  std::vector<GanttRow> rows{};
  std::vector<LegendEntry> legend{};
  bool operator==(const GanttChart&) const = default;
};

// One drawn rectangle: a task, or a run of tasks merged by the rule above.
struct GanttBox {
  double start = 0;
  double end = 0;
  std::int32_t first = 0;     // index of its first task in the row
  std::int32_t count = 1;     // tasks it holds
  std::int32_t critical = 0;  // of which on the critical path
  bool operator==(const GanttBox&) const = default;
};

// The rectangles of one row at `pixels_per_unit` (the merge rule above).
// @post the counts add up to tasks.size(), the critical counts to the critical tasks.
std::vector<GanttBox> merge_gantt_tasks(const std::vector<GanttTask>& tasks,
                                        double pixels_per_unit);

// The <svg> element of the chart.
std::string render_gantt_chart(const GanttChart& chart);

}  // namespace dtplan::report
