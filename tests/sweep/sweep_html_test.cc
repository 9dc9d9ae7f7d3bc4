#include "sweep/sweep_html.h"

#include <doctest/doctest.h>

#include <map>

#include "support/mesh_gen.h"
#include "support/sweep_support.h"
#include "support/xml_check.h"
#include "sweep/sweep.h"

namespace dtplan::sweep {
namespace {

using report::BarChart;
using testing::kGiB;
using testing::ok;

SweepResult sample(std::int64_t limit) {
  testing::FakeEvaluator fake;
  fake.set({4, 4}, core::Error::unsupported("needs <more> & better"));
  const SweepSetup s{"fake<model>", 2, "h100-dgx", 16, 8, {1, 2}, limit, "fake"};
  return ok(run_sweep(s, testing::fsdp_tp_candidates(16, {1, 2}), fake));
}

std::map<std::string, std::vector<testing::XmlElement>> by_chart(
    const std::vector<testing::XmlElement>& elements) {
  std::map<std::string, std::vector<testing::XmlElement>> out;
  std::string current;
  int depth = -1;
  for (const testing::XmlElement& e : elements) {
    if (depth >= 0 && e.depth <= depth) depth = -1;
    if (e.name == "svg") {
      current = e.attr("id");
      depth = e.depth;
      continue;
    }
    if (depth >= 0) out[current].push_back(e);
  }
  return out;
}

TEST_CASE("sweep html: a well-formed, self-contained page with the three charts and the table") {
  const SweepResult r = sample(10 * kGiB);
  const std::string page = sweep_html(r);
  CHECK(page.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
  const auto elements = ok(testing::parse_xml(page));
  // Nothing fetched from anywhere: no scripts, links, images or URLs.
  CHECK(page.find("http") == std::string::npos);
  CHECK(page.find("<script") == std::string::npos);
  CHECK(page.find("<link") == std::string::npos);
  CHECK(page.find("<img") == std::string::npos);
  CHECK(page.find("url(") == std::string::npos);
  const auto charts = by_chart(elements);
  REQUIRE(charts.size() == 3);
  REQUIRE(charts.count("pareto-chart") == 1);
  REQUIRE(charts.count("step-time-chart") == 1);
  REQUIRE(charts.count("memory-chart") == 1);

  // Step time: three stacked segments (compute, exposed, other) per feasible mesh, in rank order.
  std::vector<std::string> step_bars;
  for (const auto& e : charts.at("step-time-chart")) {
    if (e.name == "rect" && e.attr("class").starts_with("bar "))
      step_bars.push_back(e.attr("class"));
  }
  CHECK(step_bars.size() == 9);  // 3 feasible meshes x 3 segments; 4x4 is infeasible
  CHECK(step_bars[0] == "bar compute");
  CHECK(step_bars[1] == "bar exposed");
  CHECK(step_bars[2] == "bar other");

  // Memory: one bar per feasible mesh, red over the 10 GiB limit, and the limit line.
  std::vector<std::string> mem_bars;
  int limit_lines = 0;
  for (const auto& e : charts.at("memory-chart")) {
    if (e.name == "rect" && e.attr("class").starts_with("bar "))
      mem_bars.push_back(e.attr("class"));
    if (e.name == "line" && e.attr("class") == "limit") ++limit_lines;
  }
  // Ranked: (8,2) 8 GiB fits, (16) 4 GiB fits, (2,8) 32 GiB over, (4,4) infeasible.
  CHECK(mem_bars == std::vector<std::string>{"bar mem", "bar mem", "bar mem-over"});
  CHECK(limit_lines == 1);

  int table_rows = 0;
  bool in_results = false;
  for (const auto& e : elements) {
    if (e.name == "table") in_results = e.attr("id") == "results";
    if (in_results && e.name == "tr") ++table_rows;
  }
  CHECK(table_rows == 5);  // header + 4 meshes
  CHECK(page.find("needs &lt;more&gt; &amp; better") != std::string::npos);
  CHECK(page.find("fake&lt;model&gt;") != std::string::npos);
  CHECK(page == sweep_html(sample(10 * kGiB)));
}

TEST_CASE("sweep html: the scatter has every feasible mesh, the front of the usable ones") {
  const SweepResult r = sample(10 * kGiB);
  const report::ScatterChart c = pareto_chart(r, {});
  // Ranked: (8,2) 8 GiB fits, (16) 4 GiB fits, (2,8) 32 GiB over, (4,4) infeasible.
  REQUIRE(c.points.size() == 3);
  CHECK(c.points[0].css_class == "usable");
  CHECK(c.points[1].css_class == "usable");
  CHECK(c.points[2].css_class == "over");
  CHECK(c.points[0].y == 8.0);
  CHECK(c.points[0].x == doctest::Approx(r.rows[0].evaluation.step_time_us / 1000.0));
  // (8,2) is faster, (16) smaller: neither dominates; (2,8) is over the limit, off the front.
  CHECK(c.front == std::vector<std::int32_t>{0, 1});
  CHECK(c.limit == 10.0);
  CHECK(c.points[0].href.empty());

  const std::string page = sweep_html(r, {.plans_href = "../p lans"});
  const auto charts = by_chart(ok(testing::parse_xml(page)));
  int circles = 0, links = 0;
  for (const auto& e : charts.at("pareto-chart")) {
    circles += e.name == "circle";
    if (e.name == "a") {
      ++links;
      CHECK(e.attr("href").starts_with("../p lans/"));
    }
  }
  CHECK(circles == 3);
  CHECK(links == 2);  // the usable meshes only
  CHECK(page.find("<a href=\"../p lans/8x2_dp_shard-tp.json\">8x2 (dp_shard,tp)</a>") !=
        std::string::npos);
  CHECK(page.find("16_dp_shard.json") != std::string::npos);
  CHECK(page.find("2x8_dp_shard-tp.json") == std::string::npos);  // over the limit: no plan file
  CHECK(plan_href(r.rows[2], {.plans_href = "x"}).empty());
}

TEST_CASE("sweep html: no limit line without a memory limit") {
  const BarChart c = memory_chart(sample(0));
  CHECK_FALSE(c.limit.has_value());
  CHECK(c.rows.size() == 4);
  CHECK(c.rows[0].label == "8x2 (dp_shard,tp)");
  CHECK(c.rows[3].annotation == "infeasible");
  const BarChart s = step_time_chart(sample(0));
  CHECK(s.rows[0].segments.size() == 3);
  CHECK(s.rows[0].segments[0].value == 1.0);  // 1000 us compute in ms
  CHECK(s.rows[0].annotation == "1.077 ms");
}

}  // namespace
}  // namespace dtplan::sweep
