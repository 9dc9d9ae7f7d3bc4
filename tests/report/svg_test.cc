#include "report/svg.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "support/mesh_gen.h"
#include "support/xml_check.h"

namespace dtplan::report {
namespace {

TEST_CASE("svg: nice ceilings are 1, 2 or 5 times a power of ten, the next one up") {
  CHECK(nice_ceiling(3) == 5);
  CHECK(nice_ceiling(120) == 200);
  CHECK(nice_ceiling(0.3) == doctest::Approx(0.5));
  CHECK(nice_ceiling(1000) == 1000);
  CHECK(nice_ceiling(0) == 1);
  CHECK(nice_ceiling(-4) == 1);
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> exponent(-3, 9);
  for (int i = 0; i < 2000; ++i) {
    const double v = std::pow(10.0, exponent(rng));
    const double c = nice_ceiling(v);
    CHECK(c >= v);
    CHECK(c <= 2.5 * v);  // the gaps between 1, 2, 5, 10 are at most x2.5
    const double mantissa = c / std::pow(10.0, std::floor(std::log10(c) + 1e-9));
    CHECK((std::abs(mantissa - 1) < 1e-9 || std::abs(mantissa - 2) < 1e-9 ||
           std::abs(mantissa - 5) < 1e-9));
  }
}

TEST_CASE("svg: escaping") {
  CHECK(xml_escape("a<b & \"c\" 'd'>") == "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
}

TEST_CASE("svg: a round axis ends just past the data") {
  CHECK(round_axis(2.865, 10) == AxisScale{3.0, 6});
  CHECK(round_axis(9, 10) == AxisScale{9, 9});
  CHECK(round_axis(10, 10) == AxisScale{10, 10});
  CHECK(round_axis(0, 10) == AxisScale{1, 1});
  for (double v = 0.013; v < 1e7; v *= 1.37) {
    const AxisScale s = round_axis(v, 10);
    CHECK(s.max >= v);
    CHECK(s.ticks <= 10);
    CHECK(s.max <= v * 1.2501);  // at most one step past, a step <= 2.5 x value / 10
  }
}

TEST_CASE("svg: numbers, tick labels, legend, axis and page are well-formed") {
  CHECK(svg_number(12.345) == "12.3");
  CHECK(svg_number(-0.04) == "0.0");  // no negative zero
  CHECK(tick_text(40, 20) == "40");
  CHECK(tick_text(0.5, 0.1) == "0.5");
  CHECK(tick_text(0.25, 0.05) == "0.25");
  const std::string legend = svg_legend({{"a", "alpha"}, {"b", "b & c"}}, 10, 20);
  const std::string axis = svg_x_axis(
      {.left = 100, .width = 500, .top = 10, .bottom = 110, .max = 50, .ticks = 5, .unit = "ms"});
  const std::string svg = svg_open("id", 700, 160, "T <1>", 100) + legend + axis + "</svg>";
  const auto elements = testing::ok(testing::parse_xml(svg));
  int swatches = 0, grid = 0, ticks = 0;
  for (const testing::XmlElement& e : elements) {
    swatches += e.name == "rect" && e.attr("class").starts_with("swatch ");
    grid += e.name == "line" && e.attr("class") == "grid";
    ticks += e.name == "text" && e.attr("class") == "tick";
  }
  CHECK(swatches == 2);
  CHECK(grid == 6);  // 0, 10, ..., 50
  CHECK(ticks == 6);
  CHECK(axis.find("x1=\"600.0\"") != std::string::npos);  // the last grid line: 100 + 500
  CHECK(svg.find("T &lt;1&gt;") != std::string::npos);
  const std::string page = html_head("a < b", "p{}") + "<p>x</p>" + html_tail();
  CHECK(page.starts_with("<!DOCTYPE html>\n"));
  CHECK(page.ends_with("</html>\n"));
  CHECK(testing::parse_xml(page).ok());
}

}  // namespace
}  // namespace dtplan::report
