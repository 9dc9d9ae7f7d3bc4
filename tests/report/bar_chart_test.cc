#include "report/bar_chart.h"

#include <doctest/doctest.h>

#include "support/mesh_gen.h"
#include "support/xml_check.h"

namespace dtplan::report {
namespace {

TEST_CASE("bar chart: rows, stacked segments in proportion, ticks, legend and limit") {
  BarChart c{.id = "m", .title = "Memory <per> rank", .unit = "GiB"};
  c.legend = {{"mem", "memory"}};
  c.rows.push_back({"a", {{30, "mem", "memory"}, {10, "extra", "extra"}}, "40 GiB"});
  c.rows.push_back({"b", {{80, "mem", "memory"}}, "80 GiB"});
  c.rows.push_back({"c & d", {}, "infeasible"});
  c.limit = 70;
  c.limit_label = "limit 70 GiB";
  const std::string svg = render_bar_chart(c);
  const auto elements = testing::ok(testing::parse_xml(svg));
  CHECK(elements[0].name == "svg");
  CHECK(elements[0].attr("id") == "m");
  std::vector<double> widths;
  int limits = 0;
  std::vector<std::string> ticks;
  for (const testing::XmlElement& e : elements) {
    if (e.name == "rect" && e.attr("class").starts_with("bar ")) {
      widths.push_back(std::stod(e.attr("width")));
    }
    if (e.name == "line" && e.attr("class") == "limit") {
      ++limits;
      // axis max = nice_ceiling(80) = 100; plot width 600 from x = 190.
      CHECK(e.attr("x1") == "610.0");
    }
  }
  REQUIRE(widths.size() == 3);
  CHECK(widths[0] == doctest::Approx(180));  // 30 / 100 * 600
  CHECK(widths[1] == doctest::Approx(60));
  CHECK(widths[2] == doctest::Approx(480));
  CHECK(limits == 1);
  CHECK(svg.find(">20<") != std::string::npos);  // ticks 0, 20, ..., 100
  CHECK(svg.find(">100<") != std::string::npos);
  CHECK(svg.find("c &amp; d") != std::string::npos);
  CHECK(svg.find("Memory &lt;per&gt; rank") != std::string::npos);
  CHECK(svg == render_bar_chart(c));
}

TEST_CASE("bar chart: an empty chart is still well-formed") {
  const std::string svg = render_bar_chart(BarChart{.id = "e", .title = "empty"});
  CHECK(testing::parse_xml(svg).ok());
}

}  // namespace
}  // namespace dtplan::report
