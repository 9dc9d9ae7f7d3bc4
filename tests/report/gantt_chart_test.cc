#include "report/gantt_chart.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "core/units.h"
#include "support/mesh_gen.h"
#include "support/xml_check.h"

namespace dtplan::report {
namespace {

GanttTask task(double start, double end, bool critical = false) {
  return {start, end, "compute", "t" + core::format_fixed(start, 2), critical};
}

std::int64_t total(const std::vector<GanttBox>& boxes) {
  std::int64_t n = 0;
  for (const GanttBox& b : boxes) n += b.count;
  return n;
}

TEST_CASE("gantt chart: tiny tasks of one pixel column merge, wide ones do not") {
  // 10 pixels per unit: [0, 0.02), [0.03, 0.05) and [0.06, 0.08) are tiny and start in column 0;
  // [0.12, 0.14) is tiny but in column 1; [0.2, 0.5) is 3 px wide; the last three are tiny, in
  // column 5, one of them critical.
  const std::vector<GanttTask> tasks = {task(0, 0.02),      task(0.03, 0.05), task(0.06, 0.08),
                                        task(0.12, 0.14),   task(0.2, 0.5),   task(0.5, 0.51, true),
                                        task(0.515, 0.518), task(0.52, 0.53)};
  const std::vector<GanttBox> boxes = merge_gantt_tasks(tasks, 10);
  REQUIRE(boxes.size() == 4);
  CHECK(boxes[0] == GanttBox{0, 0.08, 0, 3, 0});
  CHECK(boxes[1] == GanttBox{0.12, 0.14, 3, 1, 0});
  CHECK(boxes[2] == GanttBox{0.2, 0.5, 4, 1, 0});
  CHECK(boxes[3] == GanttBox{0.5, 0.53, 5, 3, 1});  // a run after a wide task starts anew
  CHECK(total(boxes) == 8);
  // At 1000 pixels per unit nothing is tiny: one box per task.
  CHECK(merge_gantt_tasks(tasks, 1000).size() == tasks.size());
}

TEST_CASE("gantt chart: boxes account for every task, runs of tiny tasks within one column") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> len(0, 0.3);
  for (int round = 0; round < 50; ++round) {
    std::vector<GanttTask> tasks;
    double t = 0;
    for (int i = 0; i < 400; ++i) {
      const double start = t + len(rng) * 0.2;
      tasks.push_back(task(start, start + len(rng), i % 37 == 0));
      t = tasks.back().end;
    }
    const double ppu = 2.0;
    const std::vector<GanttBox> boxes = merge_gantt_tasks(tasks, ppu);
    CHECK(total(boxes) == 400);
    std::int32_t next = 0;
    std::int64_t critical = 0;
    for (const GanttBox& b : boxes) {
      critical += b.critical;
      CHECK(b.first == next);  // consecutive, in order
      next += b.count;
      if (b.count > 1) {
        CHECK(std::floor(b.start * ppu) ==
              std::floor(tasks[static_cast<std::size_t>(b.first + b.count - 1)].start * ppu));
        for (std::int32_t k = b.first; k < b.first + b.count; ++k) {
          CHECK(
              (tasks[static_cast<std::size_t>(k)].end - tasks[static_cast<std::size_t>(k)].start) *
                  ppu <
              1);
        }
      }
    }
    CHECK(critical == 11);  // tasks 0, 37, ..., 370
  }
}

TEST_CASE("gantt chart: rows, rectangles, critical class, data-n and axis") {
  GanttChart g{.id = "g", .title = "Step <1>", .unit = "ms", .span = 9};
  g.legend = {{"compute", "compute"}, {"all_gather", "all_gather"}};
  g.rows.push_back({"compute", {task(0, 2), task(2, 5, true), task(5, 9)}});
  GanttRow comm{"comm:dp", {}};
  for (int i = 0; i < 20; ++i) {  // 20 tasks of 0.0004 ms in the first pixel column (108 px/ms)
    comm.tasks.push_back({0.0004 * i, 0.0004 * i + 0.0004, "all_gather", "ag", false});
  }
  g.rows.push_back(comm);
  const std::string svg = render_gantt_chart(g);
  const auto elements = testing::ok(testing::parse_xml(svg));
  int rects = 0, critical = 0, lanes = 0;
  std::int64_t n = 0;
  for (const testing::XmlElement& e : elements) {
    lanes += e.name == "g" && e.attr("class") == "lane";
    if (e.name != "rect" || !e.attr("class").starts_with("task ")) continue;
    ++rects;
    n += std::stoll(e.attr("data-n"));
    critical += e.attr("class") == "task compute critical";
  }
  CHECK(lanes == 2);
  CHECK(rects == 4);  // 3 compute tasks and one merged run of 20
  CHECK(n == 23);
  CHECK(critical == 1);
  CHECK(svg.find("20 tasks from ag to ag") != std::string::npos);
  CHECK(svg.find(">9<") != std::string::npos);  // the axis: 9 steps of 1 up to 9
  CHECK(svg.find(">10<") == std::string::npos);
  CHECK(svg == render_gantt_chart(g));
  CHECK(testing::parse_xml(render_gantt_chart(GanttChart{.id = "e"})).ok());
}

}  // namespace
}  // namespace dtplan::report
