#include "report/gantt_chart.h"

#include <algorithm>
#include <cmath>

#include "report/row_frame.h"

namespace dtplan::report {

namespace {

// Geometry, in SVG user units (pixels).
constexpr RowFrame kFrame{
    .width = 1100, .label_width = 110, .right = 20, .top = 58, .row_height = 26, .bar_height = 18};
constexpr int kMaxTicks = 10;

bool tiny(const GanttTask& t, double ppu) { return (t.end - t.start) * ppu < 1; }

std::string box_svg(const GanttRow& row, const GanttBox& b, std::size_t i, double ppu) {
  const GanttTask& first = row.tasks[static_cast<std::size_t>(b.first)];
  const double w = std::max(kMinTaskPixels, (b.end - b.start) * ppu);
  std::string title = first.title;
  if (b.count > 1) {
    const GanttTask& last = row.tasks[static_cast<std::size_t>(b.first + b.count - 1)];
    title = std::to_string(b.count) + " tasks from " + first.title + " to " + last.title;
  }
  return "<rect class=\"task " + xml_escape(first.css_class) + (b.critical > 0 ? " critical" : "") +
         "\" data-n=\"" + std::to_string(b.count) + "\" data-critical=\"" +
         std::to_string(b.critical) + "\" x=\"" + svg_number(kFrame.label_width + b.start * ppu) +
         "\" y=\"" + svg_number(kFrame.bar_y(i)) + "\" width=\"" + svg_number(w) + "\" height=\"" +
         svg_number(kFrame.bar_height) + "\"><title>" + xml_escape(title) + "</title></rect>";
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
      b.critical += t.critical ? 1 : 0;
      continue;
    }
    boxes.push_back({t.start, t.end, static_cast<std::int32_t>(i), 1, t.critical ? 1 : 0});
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
  const AxisScale scale = round_axis(last, kMaxTicks);
  const double ppu = kFrame.plot_width() / scale.max;
  std::string out = open_row_chart(
      kFrame, chart.rows.size(),
      {.id = chart.id, .title = chart.title, .legend = &chart.legend, .unit = chart.unit}, scale);
  for (std::size_t i = 0; i < chart.rows.size(); ++i) {
    const GanttRow& row = chart.rows[i];
    out += open_row(kFrame, i, "lane", row.label);
    for (const GanttBox& b : merge_gantt_tasks(row.tasks, ppu)) out += box_svg(row, b, i, ppu);
    out += "</g>";
  }
  out += "</svg>";
  return out;
}

}  // namespace dtplan::report
