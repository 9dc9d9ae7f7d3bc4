#include "sweep/svg_chart.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "support/mesh_gen.h"
#include "support/xml_check.h"

namespace dtplan::sweep {
namespace {

TEST_CASE("svg chart: nice ceilings are 1, 2 or 5 times a power of ten, the next one up") {
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

TEST_CASE("svg chart: escaping") {
  CHECK(xml_escape("a<b & \"c\" 'd'>") == "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
}

TEST_CASE("svg chart: rows, stacked segments in proportion, ticks, legend and limit") {
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

TEST_CASE("svg chart: an empty chart is still well-formed") {
  const std::string svg = render_bar_chart(BarChart{.id = "e", .title = "empty"});
  CHECK(testing::parse_xml(svg).ok());
}

}  // namespace
}  // namespace dtplan::sweep
