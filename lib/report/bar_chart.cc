#include "report/bar_chart.h"

#include <algorithm>

#include "core/units.h"
#include "report/row_frame.h"

namespace dtplan::report {

namespace {

// Geometry, in SVG user units (pixels): the frame's defaults.
constexpr RowFrame kFrame{};

std::string num(double v) { return svg_number(v); }

void row(std::string& out, const BarRow& r, std::size_t i, double axis_max) {
  out += open_row(kFrame, i, "row", r.label);
  double x = kFrame.label_width;
  for (const BarSegment& s : r.segments) {
    const double w = std::max(0.0, s.value) / axis_max * kFrame.plot_width();
    out += "<rect class=\"bar " + xml_escape(s.css_class) + "\" x=\"" + num(x) + "\" y=\"" +
           num(kFrame.bar_y(i)) + "\" width=\"" + num(w) + "\" height=\"" + num(kFrame.bar_height) +
           "\"><title>" +
           xml_escape(r.label + ": " + s.name + " " + core::format_fixed(s.value, 3)) +
           "</title></rect>";
    x += w;
  }
  out += "<text class=\"annotation\" x=\"" + num(x + 6) + "\" y=\"" +
         num(kFrame.row_y(i) + kFrame.row_height / 2 + 4) + "\">" + xml_escape(r.annotation) +
         "</text></g>";
}

}  // namespace

std::string render_bar_chart(const BarChart& chart) {
  double max_value = chart.limit.value_or(0);
  for (const BarRow& r : chart.rows) {
    double total = 0;
    for (const BarSegment& s : r.segments) total += std::max(0.0, s.value);
    max_value = std::max(max_value, total);
  }
  const double axis_max = nice_ceiling(max_value);
  const double axis_y = kFrame.axis_y(chart.rows.size());
  std::string out = open_row_chart(
      kFrame, chart.rows.size(),
      {.id = chart.id, .title = chart.title, .legend = &chart.legend, .unit = chart.unit},
      AxisScale{axis_max, 5});
  for (std::size_t i = 0; i < chart.rows.size(); ++i) row(out, chart.rows[i], i, axis_max);
  if (chart.limit) {
    const double x = kFrame.label_width + *chart.limit / axis_max * kFrame.plot_width();
    out += "<line class=\"limit\" x1=\"" + num(x) + "\" y1=\"" + num(kFrame.top - 4) + "\" x2=\"" +
           num(x) + "\" y2=\"" + num(axis_y) + "\"/>";
    out += "<text class=\"limit-label\" x=\"" + num(x) + "\" y=\"" + num(kFrame.top - 6) +
           "\" text-anchor=\"middle\">" + xml_escape(chart.limit_label) + "</text>";
  }
  out += "</svg>";
  return out;
}

}  // namespace dtplan::report
