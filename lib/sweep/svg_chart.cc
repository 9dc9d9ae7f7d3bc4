#include "sweep/svg_chart.h"

#include <algorithm>
#include <cmath>

#include "core/units.h"

namespace dtplan::sweep {

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

std::string num(double v) { return core::format_fixed(v, 1); }

// Tick labels: enough decimals to tell ticks `step` apart.
std::string tick_text(double value, double step) {
  int digits = 0;
  for (double s = step; s < 1 && digits < 6; s *= 10) ++digits;
  return core::format_fixed(value, digits);
}

double plot_width() { return kWidth - kLabelWidth - kAnnotationWidth; }

void legend(std::string& out, const BarChart& c) {
  double x = kLabelWidth;
  for (const LegendEntry& e : c.legend) {
    out += "<rect class=\"swatch " + xml_escape(e.css_class) + "\" x=\"" + num(x) +
           "\" y=\"30\" width=\"12\" height=\"12\"/>";
    out += "<text class=\"legend\" x=\"" + num(x + 16) + "\" y=\"40\">" + xml_escape(e.name) +
           "</text>";
    x += 28 + 7.5 * static_cast<double>(e.name.size());
  }
}

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

double nice_ceiling(double value) {
  if (!(value > 0) || !std::isfinite(value)) return 1;
  double base = std::pow(10.0, std::floor(std::log10(value)));
  for (;;) {
    for (double m : {1.0, 2.0, 5.0}) {
      if (m * base >= value) return m * base;
    }
    base *= 10;
  }
}

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

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

  std::string out = "<svg id=\"" + xml_escape(chart.id) + "\" class=\"chart\" width=\"" +
                    num(kWidth) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(kWidth) +
                    " " + num(height) + "\" role=\"img\" aria-label=\"" + xml_escape(chart.title) +
                    "\">";
  out += "<title>" + xml_escape(chart.title) + "</title>";
  out += "<text class=\"chart-title\" x=\"" + num(kLabelWidth) + "\" y=\"18\">" +
         xml_escape(chart.title) + "</text>";
  legend(out, chart);
  // Grid and ticks.
  const double step = axis_max / kTicks;
  for (int t = 0; t <= kTicks; ++t) {
    const double x = kLabelWidth + plot_width() * t / kTicks;
    out += "<line class=\"grid\" x1=\"" + num(x) + "\" y1=\"" + num(kTop) + "\" x2=\"" + num(x) +
           "\" y2=\"" + num(axis_y) + "\"/>";
    out += "<text class=\"tick\" x=\"" + num(x) + "\" y=\"" + num(axis_y + 16) +
           "\" text-anchor=\"middle\">" + tick_text(step * t, step) + "</text>";
  }
  out += "<line class=\"axis\" x1=\"" + num(kLabelWidth) + "\" y1=\"" + num(axis_y) + "\" x2=\"" +
         num(kLabelWidth + plot_width()) + "\" y2=\"" + num(axis_y) + "\"/>";
  out += "<text class=\"unit\" x=\"" + num(kLabelWidth + plot_width()) + "\" y=\"" +
         num(axis_y + 32) + "\" text-anchor=\"end\">" + xml_escape(chart.unit) + "</text>";
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

}  // namespace dtplan::sweep
