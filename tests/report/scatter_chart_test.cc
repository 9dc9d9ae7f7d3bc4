#include "report/scatter_chart.h"

#include <doctest/doctest.h>

#include "support/mesh_gen.h"
#include "support/xml_check.h"

namespace dtplan::report {
namespace {

TEST_CASE("scatter chart: points, links, front line and limit") {
  ScatterChart c{.id = "s", .title = "time vs memory", .x_unit = "ms", .y_unit = "GiB"};
  c.points = {
      {.x = 10, .y = 40, .css_class = "usable", .label = "a", .title = "a", .href = "p/a.json"},
      {.x = 20, .y = 20, .css_class = "usable", .label = "b", .title = "b"},
      {.x = 30, .y = 90, .css_class = "over", .label = "c", .title = "c & d"}};
  c.front = {0, 1};
  c.limit = 80;
  c.limit_label = "limit 80 GiB";
  const std::string svg = render_scatter_chart(c);
  const auto elements = testing::ok(testing::parse_xml(svg));
  int circles = 0, on_front = 0, links = 0, polylines = 0, limits = 0, labels = 0;
  for (const testing::XmlElement& e : elements) {
    if (e.name == "circle") {
      ++circles;
      on_front += e.attr("class").ends_with(" on-front");
    }
    if (e.name == "a") {
      ++links;
      CHECK(e.attr("href") == "p/a.json");
    }
    if (e.name == "polyline") {
      ++polylines;
      // x: 80 + v / 50 * 740; y: 420 - v / 100 * 360.
      CHECK(e.attr("points") == "228.0,276.0 376.0,348.0");
    }
    if (e.name == "line" && e.attr("class") == "limit") {
      ++limits;
      CHECK(e.attr("y1") == "132.0");  // 420 - 0.8 * 360
    }
    labels += e.name == "text" && e.attr("class") == "point-label";
  }
  CHECK(circles == 3);
  CHECK(on_front == 2);
  CHECK(links == 1);
  CHECK(polylines == 1);
  CHECK(limits == 1);
  CHECK(labels == 2);
  CHECK(svg.find("c &amp; d") != std::string::npos);
  CHECK(svg == render_scatter_chart(c));
}

TEST_CASE("scatter chart: no points, no front, still well-formed") {
  const std::string svg = render_scatter_chart(ScatterChart{.id = "e"});
  CHECK(testing::parse_xml(svg).ok());
  CHECK(svg.find("polyline") == std::string::npos);
}

}  // namespace
}  // namespace dtplan::report
