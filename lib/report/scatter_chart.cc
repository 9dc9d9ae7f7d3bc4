#include "report/scatter_chart.h"

#include <algorithm>
#include <set>

namespace dtplan::report {

namespace {

// Geometry, in SVG user units (pixels).
constexpr double kWidth = 960;
constexpr double kLeft = 80;    // y tick labels and unit
constexpr double kRight = 140;  // labels of the rightmost points
constexpr double kTop = 60;     // title and legend
constexpr double kPlotHeight = 360;
constexpr double kBottom = 40;  // x axis ticks and unit
constexpr double kRadius = 5;
constexpr int kTicks = 5;

constexpr double plot_width() { return kWidth - kLeft - kRight; }

// Horizontal grid lines and tick labels along y, and the y unit above the axis.
std::string y_axis(double y_max, const std::string& unit) {
  std::string out;
  const double step = y_max / kTicks;
  const double bottom = kTop + kPlotHeight;
  for (int t = 0; t <= kTicks; ++t) {
    const std::string y = svg_number(bottom - kPlotHeight * t / kTicks);
    out += "<line class=\"grid\" x1=\"" + svg_number(kLeft) + "\" y1=\"" + y + "\" x2=\"" +
           svg_number(kLeft + plot_width()) + "\" y2=\"" + y + "\"/>";
    out += "<text class=\"tick\" x=\"" + svg_number(kLeft - 6) + "\" y=\"" + y +
           "\" text-anchor=\"end\" dy=\"4\">" + tick_text(step * t, step) + "</text>";
  }
  out += "<line class=\"axis\" x1=\"" + svg_number(kLeft) + "\" y1=\"" + svg_number(kTop) +
         "\" x2=\"" + svg_number(kLeft) + "\" y2=\"" + svg_number(bottom) + "\"/>";
  out += "<text class=\"unit\" x=\"" + svg_number(kLeft - 6) + "\" y=\"" + svg_number(kTop - 8) +
         "\" text-anchor=\"end\">" + xml_escape(unit) + "</text>";
  return out;
}

}  // namespace

std::string render_scatter_chart(const ScatterChart& chart) {
  double x_max = 0;
  double y_max = chart.limit.value_or(0);
  for (const ScatterPoint& p : chart.points) {
    x_max = std::max(x_max, p.x);
    y_max = std::max(y_max, p.y);
  }
  x_max = nice_ceiling(x_max);
  y_max = nice_ceiling(y_max);
  const double bottom = kTop + kPlotHeight;
  const auto px = [&](double x) { return kLeft + std::max(0.0, x) / x_max * plot_width(); };
  const auto py = [&](double y) { return bottom - std::max(0.0, y) / y_max * kPlotHeight; };

  std::string out = svg_open(chart.id, kWidth, bottom + kBottom, chart.title, kLeft);
  out += svg_legend(chart.legend, kLeft, 28);
  out += svg_x_axis({.left = kLeft,
                     .width = plot_width(),
                     .top = kTop,
                     .bottom = bottom,
                     .max = x_max,
                     .ticks = kTicks,
                     .unit = chart.x_unit});
  out += y_axis(y_max, chart.y_unit);
  if (chart.limit) {
    const std::string y = svg_number(py(*chart.limit));
    out += "<line class=\"limit\" x1=\"" + svg_number(kLeft) + "\" y1=\"" + y + "\" x2=\"" +
           svg_number(kLeft + plot_width()) + "\" y2=\"" + y + "\"/>";
    out += "<text class=\"limit-label\" x=\"" + svg_number(kLeft + plot_width() + 4) + "\" y=\"" +
           y + "\" dy=\"4\">" + xml_escape(chart.limit_label) + "</text>";
  }
  if (!chart.front.empty()) {
    std::string points;
    for (std::int32_t i : chart.front) {
      const ScatterPoint& p = chart.points[static_cast<std::size_t>(i)];
      points += (points.empty() ? "" : " ") + svg_number(px(p.x)) + "," + svg_number(py(p.y));
    }
    out += "<polyline class=\"front\" points=\"" + points + "\"/>";
  }
  const std::set<std::int32_t> on_front(chart.front.begin(), chart.front.end());
  for (std::size_t i = 0; i < chart.points.size(); ++i) {
    const ScatterPoint& p = chart.points[i];
    const bool front = on_front.contains(static_cast<std::int32_t>(i));
    std::string circle = "<circle class=\"point " + xml_escape(p.css_class) +
                         (front ? " on-front" : "") + "\" cx=\"" + svg_number(px(p.x)) +
                         "\" cy=\"" + svg_number(py(p.y)) + "\" r=\"" + svg_number(kRadius) +
                         "\"><title>" + xml_escape(p.title) + "</title></circle>";
    if (!p.href.empty()) circle = "<a href=\"" + xml_escape(p.href) + "\">" + circle + "</a>";
    out += circle;
    if (front) {
      out += "<text class=\"point-label\" x=\"" + svg_number(px(p.x) + 8) + "\" y=\"" +
             svg_number(py(p.y) - 6) + "\">" + xml_escape(p.label) + "</text>";
    }
  }
  out += "</svg>";
  return out;
}

}  // namespace dtplan::report
