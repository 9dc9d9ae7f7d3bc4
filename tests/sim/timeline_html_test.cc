// The step page: the Gantt chart accounts for every task of the critical rank, the critical
// path is outlined, the exposed communication by collective is computed against compute.
#include "sim/timeline_html.h"

#include <doctest/doctest.h>

#include "support/mesh_gen.h"
#include "support/plan_builder.h"
#include "support/xml_check.h"

namespace dtplan::sim {
namespace {

using testing::all_gather;
using testing::PlanBuilder;
using testing::reduce_scatter;

// w (parameter) -> all_gather on dp (ag) -> b; a (40) first; then b's output reduce-scattered
// (30) into c (10): the all-gather hides behind a up to 40 us, the reduce-scatter is exposed.
Timeline simulate(double ag_us) {
  PlanBuilder b({8}, {"dp"}, 8);
  const auto w = b.param("w", 0);
  const auto a = b.op("a", 40, {});
  const auto m = b.op("b", 20, {a, w}, plan::Phase::kForward, 0);
  const auto c = b.op("c", 10, {m}, plan::Phase::kForward, 1);
  b.redistribute(m, 1, {all_gather({0}, ag_us)});
  b.redistribute(c, 0, {reduce_scatter({0}, 30)});
  return testing::ok(simulate_step(b.build(), {}));
}

TEST_CASE("timeline html: exposed communication by collective") {
  const Timeline tl = simulate(50);
  const std::vector<ExposedShare> shares = exposed_by_collective(tl);
  REQUIRE(shares.size() == 2);
  CHECK(shares[0].name == "all_gather");
  CHECK(shares[0].exposed_us == doctest::Approx(10));  // 50 - the 40 of a
  CHECK(shares[0].tasks == 1);
  CHECK(shares[1].name == "reduce_scatter");
  CHECK(shares[1].exposed_us == doctest::Approx(30));
  CHECK(tl.exposed_communication_us == doctest::Approx(40));
}

TEST_CASE("timeline html: one box per task, the critical path outlined, a well-formed page") {
  const Timeline tl = simulate(50);
  const report::GanttChart g = timeline_gantt(tl);
  REQUIRE(g.rows.size() == tl.program.streams.size());
  std::size_t tasks = 0, critical = 0;
  for (const report::GanttRow& r : g.rows) {
    tasks += r.tasks.size();
    for (const report::GanttTask& t : r.tasks) critical += t.critical;
  }
  CHECK(tasks == tl.program.tasks.size());
  CHECK(critical == tl.critical_path.size());
  const std::string page = timeline_html(tl, "toy");
  const auto elements = testing::ok(testing::parse_xml(page));
  std::int64_t drawn = 0;
  int charts = 0;
  for (const testing::XmlElement& e : elements) {
    if (e.name == "rect" && e.attr("class").starts_with("task ")) {
      drawn += std::stoll(e.attr("data-n"));
    }
    charts += e.name == "svg";
  }
  CHECK(drawn == static_cast<std::int64_t>(tl.program.tasks.size()));
  CHECK(charts == 3);
  CHECK(page.find("id=\"timeline-chart\"") != std::string::npos);
  CHECK(page.find("id=\"exposed-chart\"") != std::string::npos);
  CHECK(page == timeline_html(tl, "toy"));
  const report::BarChart busy = stream_busy_chart(tl);
  REQUIRE(busy.rows.size() == 2);
  CHECK(busy.rows[0].segments[0].value == doctest::Approx(0.07));  // 40 + 20 + 10 us of compute
}

}  // namespace
}  // namespace dtplan::sim
