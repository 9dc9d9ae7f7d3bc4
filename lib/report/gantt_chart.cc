#include "report/gantt_chart.h"

#include <algorithm>
#include <cmath>

#include "core/units.h"

namespace dtplan::report {

namespace {

// Geometry, in SVG user units (pixels).
constexpr double kWidth = 1100;
constexpr double kLabelWidth = 110;  // row labels, right-aligned at kLabelWidth - 8
constexpr double kRight = 20;
constexpr double kTop = 56;  // title and legend above the rows
constexpr double kRowHeight = 26;
constexpr double kBoxHeight = 18;
constexpr double kBottom = 40;  // time axis ticks and unit
constexpr int kTicks = 10;

constexpr double plot_width() { return kWidth - kLabelWidth - kRight; }

bool tiny(const GanttTask& t, double ppu) { return !t.critical && (t.end - t.start) * ppu < 1; }

std::string box_svg(const GanttRow& row, const GanttBox& b, double y, double ppu) {
  const GanttTask& first = row.tasks[static_cast<std::size_t>(b.first)];
  const double w = std::max(kMinTaskPixels, (b.end - b.start) * ppu);
  std::string title = first.title;
  if (b.count > 1) {
    const GanttTask& last = row.tasks[static_cast<std::size_t>(b.first + b.count - 1)];
    title = std::to_string(b.count) + " tasks from " + first.title + " to " + last.title;
  }
  return "<rect class=\"task " + xml_escape(first.css_class) + (first.critical ? " critical" : "") +
         "\" data-n=\"" + std::to_string(b.count) + "\" x=\"" +
         svg_number(kLabelWidth + b.start * ppu) + "\" y=\"" + svg_number(y) + "\" width=\"" +
         svg_number(w) + "\" height=\"" + svg_number(kBoxHeight) + "\"><title>" +
         xml_escape(title) + "</title></rect>";
}

}  // namespace

std::vector<GanttBox> merge_gantt_tasks(const std::vector<GanttTask>& tasks,
                                        double pixels_per_unit) {
  std::vector<GanttBox> boxes;
  bool open_run = false;  // the last box is a run of tiny tasks that may grow
  double run_column = 0;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const GanttTask& t = tasks[i];
    const bool small = tiny(t, pixels_per_unit);
    const double column = std::floor(t.start * pixels_per_unit);
    if (small && open_run && column == run_column) {
      GanttBox& b = boxes.back();
      b.end = std::max(b.end, t.end);
      ++b.count;
      continue;
    }
    boxes.push_back({t.start, t.end, static_cast<std::int32_t>(i), 1});
    open_run = small;
    run_column = column;
  }
  return boxes;
}

std::string render_gantt_chart(const GanttChart& chart) {
  double last = chart.span;
  for (const GanttRow& r : chart.rows) {
    for (const GanttTask& t : r.tasks) last = std::max(last, t.end);
  }
  const double axis_max = nice_ceiling(last);
  const double ppu = plot_width() / axis_max;
  const double rows_height =
      kRowHeight * static_cast<double>(std::max<std::size_t>(chart.rows.size(), 1));
  const double axis_y = kTop + rows_height;
  std::string out =
      svg_open(chart.id, kWidth, axis_y + kBottom, chart.title, kLabelWidth);
  out += svg_legend(chart.legend, kLabelWidth, 28);
  out += svg_x_axis({.left = kLabelWidth,
                     .width = plot_width(),
                     .top = kTop,
                     .bottom = axis_y,
                     .max = axis_max,
                     .ticks = kTicks,
                     .unit = chart.unit});
  for (std::size_t i = 0; i < chart.rows.size(); ++i) {
    const GanttRow& row = chart.rows[i];
    const double y = kTop + kRowHeight * static_cast<double>(i);
    out += "<g class=\"lane\"><text class=\"label\" x=\"" + svg_number(kLabelWidth - 8) +
           "\" y=\"" + svg_number(y + kRowHeight / 2 + 4) + "\" text-anchor=\"end\">" +
           xml_escape(row.label) + "</text>";
    for (const GanttBox& b : merge_gantt_tasks(row.tasks, ppu)) {
      out += box_svg(row, b, y + (kRowHeight - kBoxHeight) / 2, ppu);
    }
    out += "</g>";
  }
  out += "</svg>";
  return out;
}

}  // namespace dtplan::report
