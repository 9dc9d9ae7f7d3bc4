#include "report/bar_chart.h"

#include <algorithm>

#include "core/units.h"

namespace dtplan::report {

namespace {

// Geometry, in SVG user units (pixels).
constexpr double kWidth = 960;
constexpr double kLabelWidth = 190;  // row labels, right-aligned at kLabelWidth - 8
constexpr double kAnnotationWidth = 170;
constexpr double kTop = 68;  // title and legend above the rows
constexpr double kRowHeight = 22;
constexpr double kBarHeight = 14;
constexpr double kBottom = 40;  // x axis ticks and unit
constexpr int kTicks = 5;

std::string num(double v) { return svg_number(v); }

double plot_width() { return kWidth - kLabelWidth - kAnnotationWidth; }

void row(std::string& out, const BarRow& r, double y, double axis_max) {
  const double bar_y = y + (kRowHeight - kBarHeight) / 2;
  out += "<g class=\"row\"><text class=\"label\" x=\"" + num(kLabelWidth - 8) + "\" y=\"" +
         num(y + kRowHeight / 2 + 4) + "\" text-anchor=\"end\">" + xml_escape(r.label) + "</text>";
  double x = kLabelWidth;
  for (const BarSegment& s : r.segments) {
    const double w = std::max(0.0, s.value) / axis_max * plot_width();
    out += "<rect class=\"bar " + xml_escape(s.css_class) + "\" x=\"" + num(x) + "\" y=\"" +
           num(bar_y) + "\" width=\"" + num(w) + "\" height=\"" + num(kBarHeight) + "\"><title>" +
           xml_escape(r.label + ": " + s.name + " " + core::format_fixed(s.value, 3)) +
           "</title></rect>";
    x += w;
  }
  out += "<text class=\"annotation\" x=\"" + num(x + 6) + "\" y=\"" + num(y + kRowHeight / 2 + 4) +
         "\">" + xml_escape(r.annotation) + "</text></g>";
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
  const double rows_height =
      kRowHeight * static_cast<double>(std::max<std::size_t>(chart.rows.size(), 1));
  const double height = kTop + rows_height + kBottom;
  const double axis_y = kTop + rows_height;

  std::string out = svg_open(chart.id, kWidth, height, chart.title, kLabelWidth);
  out += svg_legend(chart.legend, kLabelWidth, 30);
  out += svg_x_axis({.left = kLabelWidth,
                     .width = plot_width(),
                     .top = kTop,
                     .bottom = axis_y,
                     .max = axis_max,
                     .ticks = kTicks,
                     .unit = chart.unit});
  for (std::size_t i = 0; i < chart.rows.size(); ++i) {
    row(out, chart.rows[i], kTop + kRowHeight * static_cast<double>(i), axis_max);
  }
  if (chart.limit) {
    const double x = kLabelWidth + *chart.limit / axis_max * plot_width();
    out += "<line class=\"limit\" x1=\"" + num(x) + "\" y1=\"" + num(kTop - 4) + "\" x2=\"" +
           num(x) + "\" y2=\"" + num(axis_y) + "\"/>";
    out += "<text class=\"limit-label\" x=\"" + num(x) + "\" y=\"" + num(kTop - 6) +
           "\" text-anchor=\"middle\">" + xml_escape(chart.limit_label) + "</text>";
  }
  out += "</svg>";
  return out;
}

}  // namespace dtplan::report
