#pragma once
// A scatter chart as inline SVG (the sweep report's step time vs memory): points on x/y axes
// that start at 0 and end at round values, a front drawn as a line through chosen points in
// the order given (class `front`; those points also get class `on-front` and a text label), an
// optional dashed horizontal limit line, and a legend. A point with an `href` is wrapped in a
// link (<a href>), so a reader can click through to its file. Each point is a <circle> with
// class `point` and its series class.
//
//   ScatterChart c{.id = "pareto", .title = "Step time vs memory", .x_unit = "ms",
//                  .y_unit = "GiB"};
//   c.points.push_back({.x = 812.3, .y = 61.2, .css_class = "usable", .label = "8x8",
//                       .title = "8x8 (dp,tp): 812.3 ms, 61.2 GiB", .href = "plans/8x8.json"});
//   c.front = {0};
//   c.limit = 80.0;  c.limit_label = "limit 80 GiB";
//   std::string svg = render_scatter_chart(c);

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/svg.h"

namespace dtplan::report {

struct ScatterPoint {
  double x = 0;  // >= 0
  double y = 0;  // >= 0
  std::string css_class{};
  std::string label{};  // drawn beside the point when it is on the front
  std::string title{};  // the tooltip
  std::string href{};   // "": no link
  bool operator==(const ScatterPoint&) const = default;
};

struct ScatterChart {
  std::string id{};
  std::string title{};
  std::string x_unit{};
  std::string y_unit{};
  std::vector<ScatterPoint> points{};
  std::vector<std::int32_t> front{};  // indices into points, joined by a line in this order
  std::optional<double> limit{};      // a dashed horizontal line at this y
  std::string limit_label{};
  std::vector<LegendEntry> legend{};
  bool operator==(const ScatterChart&) const = default;
};

// The <svg> element of the chart.
// @pre every index in `front` is a valid index into `points`.
std::string render_scatter_chart(const ScatterChart& chart);

}  // namespace dtplan::report
