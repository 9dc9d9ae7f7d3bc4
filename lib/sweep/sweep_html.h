#pragma once
// The HTML report of a sweep (`dtplan sweep --html FILE`): one self-contained page (inline CSS
// and SVG, no script, no external reference) that opens in any browser offline. It shows
//   - the setup (model, world, hardware, memory limit, evaluator, ranking rule);
//   - chart `step-time-chart`: step time per mesh shape, best first, as stacked bars of compute,
//     exposed communication and the rest of the step, in ms;
//   - chart `memory-chart`: peak memory per rank per mesh shape in GiB, with the memory limit as
//     a dashed line and the meshes over it in red;
//   - chart `pareto-chart`: step time (x, ms) against peak memory per rank (y, GiB) of every
//     feasible mesh, usable ones (class `usable`) and those over the memory limit (class
//     `over`), the Pareto front of the usable ones (pareto.h) as a line, and the memory limit as
//     a dashed line;
//   - table `results`: every row with its figures.
// With SweepHtmlOptions::plans_href (`dtplan sweep --plans DIR`), every usable mesh's point and
// its table row link to its plan file, href "<plans_href>/<plan_file_name>" (plan_files.h).
// The page is well-formed XML apart from its doctype (void elements are self-closed), so tests
// can check its structure with a simple parser.
//
//   std::string page = sweep_html(result);  // "<!DOCTYPE html>\n<html lang=\"en\">..."

#include <string>

#include "report/bar_chart.h"
#include "report/scatter_chart.h"
#include "sweep/sweep_result.h"

namespace dtplan::sweep {

struct SweepHtmlOptions {
  // The plan files' directory relative to the page ("plans", "../out/plans"); "": no links.
  std::string plans_href{};
};

std::string sweep_html(const SweepResult& result, const SweepHtmlOptions& options = {});

// The two charts of the page, as data (tested on their own).
report::BarChart step_time_chart(const SweepResult& result);
report::BarChart memory_chart(const SweepResult& result);
report::ScatterChart pareto_chart(const SweepResult& result, const SweepHtmlOptions& options);

// The link to a row's plan file, "" without plans_href or when the row is not usable.
std::string plan_href(const SweepRow& row, const SweepHtmlOptions& options);

}  // namespace dtplan::sweep
