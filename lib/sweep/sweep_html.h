#pragma once
// The HTML report of a sweep (`dtplan sweep --html FILE`): one self-contained page (inline CSS
// and SVG, no script, no external reference) that opens in any browser offline. It shows
//   - the setup (model, world, hardware, memory limit, evaluator, ranking rule);
//   - chart `step-time-chart`: step time per mesh shape, best first, as stacked bars of compute,
//     exposed communication and the rest of the step, in ms;
//   - chart `memory-chart`: peak memory per rank per mesh shape in GiB, with the memory limit as
//     a dashed line and the meshes over it in red;
//   - table `results`: every row with its figures.
// The page is well-formed XML apart from its doctype (void elements are self-closed), so tests
// can check its structure with a simple parser.
//
//   std::string page = sweep_html(result);  // "<!DOCTYPE html>\n<html lang=\"en\">..."

#include <string>

#include "sweep/svg_chart.h"
#include "sweep/sweep_result.h"

namespace dtplan::sweep {

std::string sweep_html(const SweepResult& result);

// The two charts of the page, as data (tested on their own).
BarChart step_time_chart(const SweepResult& result);
BarChart memory_chart(const SweepResult& result);

}  // namespace dtplan::sweep
