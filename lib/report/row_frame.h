#pragma once
// The frame the row charts (bar_chart.h, gantt_chart.h) draw in: a title and a legend on top, a
// label column on the left, one row per item, a value axis along x under the rows. The frame
// says where things go; each chart draws its rows' contents.
//
//   RowFrame f{.width = 1100, .label_width = 110, .right = 20};
//   std::string out = open_row_chart(f, rows.size(), {.id = "g", .title = "Step"}, {10.0, 5});
//   out += open_row(f, 0, "lane", "compute") + ...boxes at f.bar_y(0)... + "</g>";

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "report/svg.h"

namespace dtplan::report {

struct RowFrame {
  double width = 960;
  double label_width = 190;  // row labels, right-aligned at label_width - 8
  double right = 170;        // right of the plot (bar annotations)
  double top = 68;           // title and legend above the rows
  double row_height = 22;
  double bar_height = 14;
  double bottom = 40;  // x axis ticks and unit
  [[nodiscard]] double plot_width() const { return width - label_width - right; }
  [[nodiscard]] double row_y(std::size_t i) const {
    return top + row_height * static_cast<double>(i);
  }
  // The top of row i's bar (centred in the row).
  [[nodiscard]] double bar_y(std::size_t i) const {
    return row_y(i) + (row_height - bar_height) / 2;
  }
  // The axis line under `rows` rows (an empty chart keeps one row's height).
  [[nodiscard]] double axis_y(std::size_t rows) const { return row_y(rows == 0 ? 1 : rows); }
};

// What a row chart says about itself.
struct RowChartHead {
  std::string_view id;
  std::string_view title;
  const std::vector<LegendEntry>* legend = nullptr;  // none: no legend
  std::string_view unit;                             // the x axis' unit
};

// The opening <svg> of a chart of `rows` rows, its title, legend, and x axis from 0 to
// `scale.max` in `scale.ticks` steps. The caller adds the rows and "</svg>".
std::string open_row_chart(const RowFrame& frame, std::size_t rows, const RowChartHead& head,
                           AxisScale scale);

// `<g class="GROUP_CLASS"><text class="label" ...>LABEL</text>` for row i; the caller closes
// the group with "</g>".
std::string open_row(const RowFrame& frame, std::size_t i, std::string_view group_class,
                     std::string_view label);

}  // namespace dtplan::report
