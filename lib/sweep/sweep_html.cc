#include "sweep/sweep_html.h"

#include "core/strings.h"
#include "core/units.h"

namespace dtplan::sweep {

namespace {

std::string row_label(const SweepRow& row);

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string gib(std::int64_t bytes) {
  return core::format_fixed(static_cast<double>(bytes) / kGiB, 2) + " GiB";
}
std::string ms(double us) { return core::format_fixed(us / 1000.0, 3) + " ms"; }

constexpr const char* kStyle =
    R"(body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:24px;color:#222;max-width:1000px}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
.setup td{padding:1px 12px 1px 0}
.chart text{font-size:12px;fill:#222}.chart .chart-title{font-size:14px;font-weight:600}
.chart .grid{stroke:#e4e4e4}.chart .axis{stroke:#888}.chart .tick,.chart .unit{fill:#555}
.compute{fill:#4e79a7}.exposed{fill:#f28e2b}.other{fill:#bab0ac}
.mem{fill:#59a14f}.mem-over{fill:#e15759}
.chart .limit{stroke:#e15759;stroke-width:2;stroke-dasharray:6 4}.chart .limit-label{fill:#e15759}
table.results{border-collapse:collapse;font-size:12px}
table.results th,table.results td{border-bottom:1px solid #ddd;padding:3px 8px;text-align:right}
table.results td.text,table.results th.text{text-align:left}
tr.unusable td{color:#999}
.note{font-size:12px;color:#555})";

std::string setup_table(const SweepResult& r) {
  const SweepSetup& s = r.setup;
  std::vector<std::string> dims;
  for (std::int32_t d : s.dims) dims.push_back(std::to_string(d));
  const std::pair<std::string, std::string> rows[] = {
      {"model", s.model + " (" + std::to_string(s.layers) + " layers)"},
      {"world",
       std::to_string(s.world) + " ranks, " + std::to_string(s.gpus_per_node) + " GPUs per node"},
      {"hardware", s.hardware},
      {"mesh dims", core::join(dims, ", ")},
      {"memory limit", s.memory_limit_bytes == 0 ? "none" : gib(s.memory_limit_bytes)},
      {"meshes", std::to_string(r.rows.size())},
      {"evaluator", s.evaluator},
  };
  std::string out = "<table class=\"setup\">";
  for (const auto& [k, v] : rows) {
    out += "<tr><td>" + xml_escape(k) + "</td><td>" + xml_escape(v) + "</td></tr>";
  }
  return out + "</table>";
}

std::string results_table(const SweepResult& r) {
  std::string out =
      "<table id=\"results\" class=\"results\"><thead><tr><th>rank</th><th "
      "class=\"text\">mesh</th><th>step (ms)</th><th>compute (ms)</th><th>exposed comm "
      "(ms)</th><th>all comm (ms)</th><th>memory (GiB)</th><th class=\"text\">status</th><th "
      "class=\"text\">note</th></tr></thead><tbody>";
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const SweepRow& row = r.rows[i];
    const MeshEvaluation& e = row.evaluation;
    const std::string status = !e.feasible        ? "infeasible"
                               : !row.fits_memory ? "over memory limit"
                               : e.optimal        ? "optimal"
                                                  : "feasible";
    const auto cell = [](double us) {
      return "<td>" + core::format_fixed(us / 1000.0, 3) + "</td>";
    };
    out += std::string("<tr") + (row.usable() ? "" : " class=\"unusable\"") + "><td>" +
           std::to_string(i + 1) + "</td><td class=\"text\">" + xml_escape(row_label(row)) +
           "</td>" + cell(e.step_time_us) + cell(e.compute_us) + cell(e.exposed_us) +
           cell(e.communication_us) + "<td>" +
           core::format_fixed(static_cast<double>(e.memory_bytes_per_rank) / kGiB, 2) +
           "</td><td class=\"text\">" + status + "</td><td class=\"text\">" + xml_escape(e.note) +
           "</td></tr>";
  }
  return out + "</tbody></table>";
}

// One chart row per result row, in rank order: `fill` draws feasible rows; infeasible rows get no
// bar and say so.
template <class Fill>
void add_rows(BarChart& chart, const SweepResult& result, const Fill& fill) {
  for (const SweepRow& row : result.rows) {
    BarRow b{row_label(row), {}, "infeasible"};
    if (row.evaluation.feasible) fill(row, b);
    chart.rows.push_back(std::move(b));
  }
}

// "8x8 (dp,tp)": a row's label in charts and tables.
std::string row_label(const SweepRow& row) {
  return shape_label(row.mesh.shape) + " (" + core::join(row.mesh.names, ",") + ")";
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

std::string sweep_html(const SweepResult& result) {
  const SweepSetup& s = result.setup;
  const std::string title =
      "dtplan sweep: " + s.model + " on " + std::to_string(s.world) + " ranks";
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>" +
                    xml_escape(title) + "</title><style>" + kStyle + "</style></head><body>";
  out += "<h1>" + xml_escape(title) + "</h1>";
  out += setup_table(result);
  out +=
      "<p class=\"note\">Ranked by the written rule: meshes with a plan that fits the memory "
      "limit first, then over the limit, then infeasible; within each, by step time, then "
      "memory per rank, then shape.</p>";
  out += "<h2>Step time</h2>" + render_bar_chart(step_time_chart(result));
  out += "<h2>Memory per rank</h2>" + render_bar_chart(memory_chart(result));
  out += "<h2>Results</h2>" + results_table(result);
  out += "</body></html>\n";
  return out;
}

}  // namespace dtplan::sweep
