#include "sweep/sweep_html.h"

#include "core/strings.h"
#include "core/units.h"
#include "sweep/pareto.h"
#include "sweep/plan_files.h"
#include "sweep/ranking.h"
#include "sweep/space_text.h"

namespace dtplan::sweep {

using report::BarChart;
using report::BarRow;
using report::xml_escape;

namespace {

std::string row_label(const SweepRow& row);
std::string chart_note(const SweepResult& r);

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// The best rows the bar charts draw: a few dozen bars stay readable, the table has them all.
constexpr std::size_t kChartRows = 40;

std::string gib(std::int64_t bytes) {
  return core::format_fixed(static_cast<double>(bytes) / kGiB, 2) + " GiB";
}
std::string ms(double us) { return core::format_fixed(us / 1000.0, 3) + " ms"; }

// The series' colours and the table's style (report::base_css() has the rest).
constexpr const char* kPageCss =
    R"(.compute{fill:#4e79a7}.exposed{fill:#f28e2b}.other{fill:#bab0ac}
.mem{fill:#59a14f}.mem-over{fill:#e15759}
table.results{border-collapse:collapse;font-size:12px}
table.results th,table.results td{border-bottom:1px solid #ddd;padding:3px 8px;text-align:right}
table.results td.text,table.results th.text{text-align:left}
tr.unusable td{color:#999}
.usable{fill:#4e79a7}.over{fill:#e15759}.chart .point{stroke:#fff;stroke-width:1}
.chart .on-front{stroke:#222;stroke-width:2}.chart .front{fill:none;stroke:#222;stroke-width:1.5}
.chart .point-label{font-size:11px})";

std::string setup_table(const SweepResult& r) {
  const SweepSetup& s = r.setup;
  std::vector<std::string> dims;
  for (std::int32_t d : s.dims) dims.push_back(std::to_string(d));
  return report::key_value_table({
      {"model", s.model + " (" + std::to_string(s.layers) + " layers)"},
      {"world",
       std::to_string(s.world) + " ranks, " + std::to_string(s.gpus_per_node) + " GPUs per node"},
      {"hardware", s.hardware},
      {"mesh dims", core::join(dims, ", ")},
      {"tried", space_text(s)},
      {"memory limit", s.memory_limit_bytes == 0 ? "none" : gib(s.memory_limit_bytes)},
      {"configurations", std::to_string(r.rows.size())},
      {"evaluator", s.evaluator},
  });
}

std::string results_table(const SweepResult& r, const SweepHtmlOptions& options) {
  std::string out =
      "<table id=\"results\" class=\"results\"><thead><tr><th>rank</th><th "
      "class=\"text\">configuration</th><th>step (ms)</th><th>tokens/s/GPU</th><th>MFU "
      "(%)</th><th>compute (ms)</th><th>exposed comm (ms)</th><th>all comm (ms)</th><th>memory "
      "(GiB)</th><th class=\"text\">status</th><th class=\"text\">note</th></tr></thead><tbody>";
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const SweepRow& row = r.rows[i];
    const MeshEvaluation& e = row.evaluation;
    const std::string status = !row.error.empty() ? "error"
                               : !e.feasible      ? "infeasible"
                               : !row.fits_memory ? "over memory limit"
                               : e.optimal        ? "optimal"
                                                  : "feasible";
    const auto cell = [](double us) {
      return "<td>" + core::format_fixed(us / 1000.0, 3) + "</td>";
    };
    const std::string href = plan_href(row, options);
    const std::string mesh = href.empty() ? xml_escape(row_label(row))
                                          : "<a href=\"" + xml_escape(href) + "\">" +
                                                xml_escape(row_label(row)) + "</a>";
    out += std::string("<tr") + (row.usable() ? "" : " class=\"unusable\"") + "><td>" +
           std::to_string(i + 1) + "</td><td class=\"text\">" + mesh + "</td>" +
           cell(e.step_time_us) + "<td>" + core::format_fixed(e.tokens_per_s_per_gpu, 1) +
           "</td><td>" + core::format_fixed(100 * e.mfu, 1) + "</td>" + cell(e.compute_us) +
           cell(e.exposed_us) + cell(e.communication_us) + "<td>" +
           core::format_fixed(static_cast<double>(e.memory_bytes_per_rank) / kGiB, 2) +
           "</td><td class=\"text\">" + status + "</td><td class=\"text\">" +
           xml_escape(row.error.empty() ? e.note : row.error) + "</td></tr>";
  }
  return out + "</tbody></table>";
}

// One chart row per result row, in rank order: `fill` draws feasible rows; infeasible rows get no
// bar and say so.
template <class Fill>
void add_rows(BarChart& chart, const SweepResult& result, const Fill& fill) {
  for (std::size_t i = 0; i < result.rows.size() && i < kChartRows; ++i) {
    const SweepRow& row = result.rows[i];
    BarRow b{row_label(row), {}, row.error.empty() ? "infeasible" : "error"};
    if (row.evaluation.feasible) fill(row, b);
    chart.rows.push_back(std::move(b));
  }
}

// "8x8 (dp_shard,tp)", with the row's training choices: a row's label in charts and tables.
std::string row_label(const SweepRow& row) { return candidate_text(row.mesh); }

// "the best 40 of 300 configurations" above a chart that does not draw them all.
std::string chart_note(const SweepResult& r) {
  if (r.rows.size() <= kChartRows) return "";
  return "<p class=\"note\">The best " + std::to_string(kChartRows) + " of " +
         std::to_string(r.rows.size()) + " configurations; the table below has them all.</p>";
}

// The staircase of best_per_memory(): from which memory per rank each configuration is the best.
std::string best_table(const SweepResult& r) {
  const std::vector<std::size_t> best = best_per_memory(r);
  if (best.empty()) return "<p class=\"note\">No configuration fits the memory limit.</p>";
  std::string out =
      "<table id=\"best\" class=\"results\"><thead><tr><th>memory per rank from "
      "(GiB)</th><th>rank</th><th class=\"text\">best configuration</th><th>step "
      "(ms)</th><th>tokens/s/GPU</th></tr></thead><tbody>";
  for (std::size_t i : best) {
    const MeshEvaluation& e = r.rows[i].evaluation;
    out += "<tr><td>" + core::format_fixed(static_cast<double>(e.memory_bytes_per_rank) / kGiB, 2) +
           "</td><td>" + std::to_string(i + 1) + "</td><td class=\"text\">" +
           xml_escape(row_label(r.rows[i])) + "</td><td>" +
           core::format_fixed(e.step_time_us / 1000.0, 3) + "</td><td>" +
           core::format_fixed(e.tokens_per_s_per_gpu, 1) + "</td></tr>";
  }
  return out + "</tbody></table>";
}

}  // namespace

BarChart step_time_chart(const SweepResult& result) {
  BarChart c{
      .id = "step-time-chart",
      .title = "Step time per mesh shape (best first)",
      .unit = "ms per step",
      .legend = {{"compute", "compute"}, {"exposed", "exposed communication"}, {"other", "other"}}};
  add_rows(c, result, [](const SweepRow& row, BarRow& b) {
    const MeshEvaluation& e = row.evaluation;
    b.segments = {{e.compute_us / 1000.0, "compute", "compute ms"},
                  {e.exposed_us / 1000.0, "exposed", "exposed communication ms"},
                  {e.other_us() / 1000.0, "other", "other ms"}};
    b.annotation = ms(e.step_time_us) + (row.fits_memory ? "" : " (over memory)");
  });
  return c;
}

BarChart memory_chart(const SweepResult& result) {
  BarChart c{.id = "memory-chart",
             .title = "Peak memory per rank",
             .unit = "GiB per rank",
             .legend = {{"mem", "within the limit"}, {"mem-over", "over the limit"}}};
  if (result.setup.memory_limit_bytes > 0) {
    c.limit = static_cast<double>(result.setup.memory_limit_bytes) / kGiB;
    c.limit_label = "limit " + gib(result.setup.memory_limit_bytes);
  }
  add_rows(c, result, [](const SweepRow& row, BarRow& b) {
    const std::int64_t bytes = row.evaluation.memory_bytes_per_rank;
    b.segments = {
        {static_cast<double>(bytes) / kGiB, row.fits_memory ? "mem" : "mem-over", "memory GiB"}};
    b.annotation = gib(bytes);
  });
  return c;
}

std::string plan_href(const SweepRow& row, const SweepHtmlOptions& options) {
  if (options.plans_href.empty() || !row.usable()) return "";
  return options.plans_href + "/" + plan_file_name(row.mesh);
}

report::ScatterChart pareto_chart(const SweepResult& result, const SweepHtmlOptions& options) {
  report::ScatterChart c{
      .id = "pareto-chart",
      .title = "Step time vs peak memory per rank (line: the Pareto front)",
      .x_unit = "ms per step",
      .y_unit = "GiB per rank",
      .legend = {{"usable", "fits the memory limit"}, {"over", "over the limit"}}};
  if (result.setup.memory_limit_bytes > 0) {
    c.limit = static_cast<double>(result.setup.memory_limit_bytes) / kGiB;
    c.limit_label = "limit " + gib(result.setup.memory_limit_bytes);
  }
  std::vector<ParetoPoint> usable;
  std::vector<std::int32_t> usable_point;  // usable[k] is points[usable_point[k]]
  for (const SweepRow& row : result.rows) {
    const MeshEvaluation& e = row.evaluation;
    if (!e.feasible) continue;
    if (row.usable()) {
      usable.push_back({time_per_token(e), e.memory_bytes_per_rank});
      usable_point.push_back(static_cast<std::int32_t>(c.points.size()));
    }
    c.points.push_back(
        {.x = e.step_time_us / 1000.0,
         .y = static_cast<double>(e.memory_bytes_per_rank) / kGiB,
         .css_class = row.usable() ? "usable" : "over",
         .label = row_label(row),
         .title = row_label(row) + ": " + ms(e.step_time_us) + ", " + gib(e.memory_bytes_per_rank),
         .href = plan_href(row, options)});
  }
  for (std::int32_t k : pareto_front(usable)) {
    c.front.push_back(usable_point[static_cast<std::size_t>(k)]);
  }
  return c;
}

std::string sweep_html(const SweepResult& result, const SweepHtmlOptions& options) {
  const SweepSetup& s = result.setup;
  const std::string title =
      "dtplan sweep: " + s.model + " on " + std::to_string(s.world) + " ranks";
  std::string out = report::html_head(title, std::string(report::base_css()) + kPageCss);
  out += "<h1>" + xml_escape(title) + "</h1>";
  out += setup_table(result);
  out +=
      "<p class=\"note\">Ranked by the written rule: configurations with a plan that fits the "
      "memory limit first, then over the limit, then infeasible; within each, by step time per "
      "token (throughput), then memory per rank, then shape, names and choices.</p>";
  out += "<h2>Best per memory limit</h2>" + best_table(result);
  out +=
      "<h2>Step time</h2>" + chart_note(result) + report::render_bar_chart(step_time_chart(result));
  out += "<h2>Memory per rank</h2>" + chart_note(result) +
         report::render_bar_chart(memory_chart(result));
  out +=
      "<h2>Step time vs memory</h2>" + report::render_scatter_chart(pareto_chart(result, options));
  out += "<h2>Results</h2>" + results_table(result, options);
  out += report::html_tail();
  return out;
}

}  // namespace dtplan::sweep
