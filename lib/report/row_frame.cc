#include "report/row_frame.h"

namespace dtplan::report {

std::string open_row_chart(const RowFrame& f, std::size_t rows, const RowChartHead& head,
                           AxisScale scale) {
  const double axis_y = f.axis_y(rows);
  std::string out = svg_open(head.id, f.width, axis_y + f.bottom, head.title, f.label_width);
  if (head.legend != nullptr) out += svg_legend(*head.legend, f.label_width, 30);
  out += svg_x_axis({.left = f.label_width,
                     .width = f.plot_width(),
                     .top = f.top,
                     .bottom = axis_y,
                     .max = scale.max,
                     .ticks = scale.ticks,
                     .unit = std::string(head.unit)});
  return out;
}

std::string open_row(const RowFrame& f, std::size_t i, std::string_view group_class,
                     std::string_view label) {
  return "<g class=\"" + xml_escape(group_class) + "\"><text class=\"label\" x=\"" +
         svg_number(f.label_width - 8) + "\" y=\"" + svg_number(f.row_y(i) + f.row_height / 2 + 4) +
         "\" text-anchor=\"end\">" + xml_escape(label) + "</text>";
}

}  // namespace dtplan::report
