#pragma once
// What every chart of dtplan's HTML reports shares (lib/report: bar_chart.h, gantt_chart.h,
// scatter_chart.h): escaping, coordinates printed with one decimal (so one chart always gives
// the same bytes), round axis ends and their tick labels, the opening of a chart, its legend and
// x axis, and the head of an HTML page. Pure string functions on core only: sim and sweep build
// their pages from them.
//
//   std::string x = svg_number(12.345);          // "12.3"
//   double top = nice_ceiling(3.2);              // 5
//   std::string t = tick_text(0.25, 0.05);       // "0.25"
//   std::string page = html_head("Title", css);  // "<!DOCTYPE html>\n<html lang=\"en\">..."

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dtplan::report {

// Escapes &, <, >, " and ' for text and attribute values.
std::string xml_escape(std::string_view text);

// A coordinate or length: fixed, one decimal ("610.0").
std::string svg_number(double value);

// The smallest 1, 2 or 5 x 10^k that is >= value (value <= 0 or not finite: 1).
// @post result >= value; nice_ceiling(3) == 5, nice_ceiling(120) == 200, nice_ceiling(0.3) == 0.5.
double nice_ceiling(double value);

// A time axis that ends just past its data: `ticks` steps of a round size (1, 2 or 5 x 10^k).
struct AxisScale {
  double max = 1;
  int ticks = 1;
  bool operator==(const AxisScale&) const = default;
};

// The scale for data up to `value` with at most `max_ticks` steps: step = nice_ceiling(value /
// max_ticks), ticks = ceil(value / step). round_axis(2.865, 10) == {3.0, 6}.
// @pre max_ticks >= 1. @post max >= value; ticks <= max_ticks.
AxisScale round_axis(double value, int max_ticks);

// A tick label: enough decimals to tell ticks `step` apart (tick_text(40, 20) == "40",
// tick_text(0.5, 0.1) == "0.5").
std::string tick_text(double value, double step);

// The opening of a chart: `<svg id=ID class="chart" width height viewBox role="img"
// aria-label=TITLE><title>TITLE</title>` and the title as text at (title_x, 18). The caller
// closes it with "</svg>".
std::string svg_open(std::string_view id, double width, double height, std::string_view title,
                     double title_x);

// One key of a chart's legend: a swatch drawn with the series' CSS class, and its name.
struct LegendEntry {
  std::string css_class;
  std::string name;
  bool operator==(const LegendEntry&) const = default;
};

// The legend as a row of swatches and names starting at (x, y) (y: the swatches' top).
std::string svg_legend(const std::vector<LegendEntry>& entries, double x, double y);

// A value axis along x: what a horizontal chart draws under its plot.
struct XAxis {
  double left = 0;     // x of the value 0
  double width = 0;    // pixels from 0 to `max`
  double top = 0;      // grid lines run from here...
  double bottom = 0;   // ...to the axis line
  double max = 1;      // the value at the right end (nice_ceiling of the data)
  int ticks = 5;       // tick intervals
  std::string unit{};  // printed under the right end
};

// Grid lines, tick labels, the axis line and its unit.
std::string svg_x_axis(const XAxis& axis);

// "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>TITLE</title>
// <style>CSS</style></head><body>": the start of a self-contained page, closed by html_tail().
// The page is XML apart from its doctype.
std::string html_head(std::string_view title, std::string_view css);

// "</body></html>\n".
std::string html_tail();

// The CSS every report page starts with (page, headings, the figures table, chart text, grid,
// axes, limit line, notes); a page appends its series' colours.
std::string_view base_css();

// A two-column table of names and values, `<table class="setup">` (a page's figures).
using KeyValues = std::vector<std::pair<std::string, std::string>>;
std::string key_value_table(const KeyValues& rows);

}  // namespace dtplan::report
