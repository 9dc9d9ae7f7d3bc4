#pragma once
// Horizontal (stacked) bar charts as inline SVG (sweep and simulate HTML reports): one row per
// item, a label on the left, the segments of its bar left to right, an annotation on the right, an
// x axis with round ticks (1, 2 or 5 x 10^k), a legend, and optionally a dashed limit line. Pure
// string output, every coordinate printed with one decimal, so the same chart gives the same
// bytes. Styling comes from CSS classes the page defines (segment classes name series).
//
//   BarChart c{.id = "memory-chart", .title = "Memory per rank", .unit = "GiB"};
//   c.rows.push_back({.label = "8x8 (dp,tp)", .segments = {{61.2, "mem", "memory"}},
//                     .annotation = "61.2 GiB"});
//   c.limit = 80.0;  c.limit_label = "limit 80 GiB";
//   std::string svg = render_bar_chart(c);  // "<svg id=\"memory-chart\" ...>...</svg>"

#include <optional>
#include <string>
#include <vector>

#include "report/svg.h"

namespace dtplan::report {

struct BarSegment {
  double value = 0;       // >= 0, in the chart's unit
  std::string css_class;  // the series, e.g. "compute"
  std::string name;       // the series as a reader sees it (tooltip), e.g. "compute"
  bool operator==(const BarSegment&) const = default;
};

struct BarRow {
  std::string label;
  std::vector<BarSegment> segments;  // empty: no bar (the annotation says why)
  std::string annotation;
  bool operator==(const BarRow&) const = default;
};

struct BarChart {
  std::string id{};
  std::string title{};
  std::string unit{};  // x axis unit, e.g. "ms"
  std::vector<BarRow> rows{};
  std::vector<LegendEntry> legend{};
  std::optional<double> limit{};  // a dashed vertical line at this value
  std::string limit_label{};
  bool operator==(const BarChart&) const = default;
};

// The <svg> element of the chart (no XML prolog, no namespace needed inline in HTML).
std::string render_bar_chart(const BarChart& chart);

}  // namespace dtplan::report
