#include "report/svg.h"

#include <algorithm>
#include <cmath>

#include "core/units.h"

namespace dtplan::report {

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

std::string svg_number(double value) { return core::format_fixed(value, 1); }

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

AxisScale round_axis(double value, int max_ticks) {
  if (!(value > 0) || !std::isfinite(value)) return {1, 1};
  const double step = nice_ceiling(value / max_ticks);
  const int ticks = std::max(1, std::min(max_ticks, static_cast<int>(std::ceil(value / step))));
  return {step * ticks, ticks};
}

std::string tick_text(double value, double step) {
  int digits = 0;
  for (double s = step; s < 1 && digits < 6; s *= 10) ++digits;
  return core::format_fixed(value, digits);
}

std::string svg_open(std::string_view id, double width, double height, std::string_view title,
                     double title_x) {
  const std::string w = svg_number(width);
  const std::string h = svg_number(height);
  return "<svg id=\"" + xml_escape(id) + "\" class=\"chart\" width=\"" + w + "\" height=\"" + h +
         "\" viewBox=\"0 0 " + w + " " + h + "\" role=\"img\" aria-label=\"" + xml_escape(title) +
         "\"><title>" + xml_escape(title) + "</title><text class=\"chart-title\" x=\"" +
         svg_number(title_x) + "\" y=\"18\">" + xml_escape(title) + "</text>";
}

std::string svg_legend(const std::vector<LegendEntry>& entries, double x, double y) {
  std::string out;
  for (const LegendEntry& e : entries) {
    out += "<rect class=\"swatch " + xml_escape(e.css_class) + "\" x=\"" + svg_number(x) +
           "\" y=\"" + svg_number(y) + "\" width=\"12\" height=\"12\"/>";
    out += "<text class=\"legend\" x=\"" + svg_number(x + 16) + "\" y=\"" + svg_number(y + 10) +
           "\">" + xml_escape(e.name) + "</text>";
    x += 28 + 7.5 * static_cast<double>(e.name.size());
  }
  return out;
}

std::string svg_x_axis(const XAxis& a) {
  std::string out;
  const double step = a.max / a.ticks;
  for (int t = 0; t <= a.ticks; ++t) {
    const std::string x = svg_number(a.left + a.width * t / a.ticks);
    out += "<line class=\"grid\" x1=\"" + x + "\" y1=\"" + svg_number(a.top) + "\" x2=\"" + x +
           "\" y2=\"" + svg_number(a.bottom) + "\"/>";
    out += "<text class=\"tick\" x=\"" + x + "\" y=\"" + svg_number(a.bottom + 16) +
           "\" text-anchor=\"middle\">" + tick_text(step * t, step) + "</text>";
  }
  const std::string right = svg_number(a.left + a.width);
  out += "<line class=\"axis\" x1=\"" + svg_number(a.left) + "\" y1=\"" + svg_number(a.bottom) +
         "\" x2=\"" + right + "\" y2=\"" + svg_number(a.bottom) + "\"/>";
  out += "<text class=\"unit\" x=\"" + right + "\" y=\"" + svg_number(a.bottom + 32) +
         "\" text-anchor=\"end\">" + xml_escape(a.unit) + "</text>";
  return out;
}

std::string html_head(std::string_view title, std::string_view css) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>" +
         xml_escape(title) + "</title><style>" + std::string(css) + "</style></head><body>";
}

std::string html_tail() { return "</body></html>\n"; }

std::string_view base_css() {
  return R"(body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:24px;color:#222;max-width:1140px}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
.setup td{padding:1px 12px 1px 0}
.chart text{font-size:12px;fill:#222}.chart .chart-title{font-size:14px;font-weight:600}
.chart .grid{stroke:#e4e4e4}.chart .axis{stroke:#888}.chart .tick,.chart .unit{fill:#555}
.chart .limit{stroke:#e15759;stroke-width:2;stroke-dasharray:6 4}.chart .limit-label{fill:#e15759}
.note{font-size:12px;color:#555}
)";
}

std::string key_value_table(const KeyValues& rows) {
  std::string out = "<table class=\"setup\">";
  for (const auto& [k, v] : rows) {
    out += "<tr><td>" + xml_escape(k) + "</td><td>" + xml_escape(v) + "</td></tr>";
  }
  return out + "</table>";
}

}  // namespace dtplan::report
