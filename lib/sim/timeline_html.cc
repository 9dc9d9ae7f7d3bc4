#include "sim/timeline_html.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/units.h"
#include "report/svg.h"

namespace dtplan::sim {

namespace {

using report::xml_escape;

// The series' colours (report::base_css() has the rest).
constexpr const char* kSeriesCss =
    R"(.compute{fill:#4e79a7}.local{fill:#bab0ac}.all_gather{fill:#59a14f}.reduce_scatter{fill:#f28e2b}
.all_reduce{fill:#e15759}.all_to_all{fill:#b07aa1}.busy{fill:#76b7b2}.exposed{fill:#f28e2b}
.chart .critical{stroke:#000;stroke-width:0.6;stroke-opacity:0.75})";

std::string ms_text(double us) { return core::format_fixed(us / 1000.0, 3) + " ms"; }

// "WHAT (rank N)": a chart of the critical rank.
std::string rank_title(std::string_view what, const Timeline& tl) {
  return std::string(what) + " (rank " + std::to_string(tl.critical_rank) + ")";
}

const RankSummary& critical_summary(const Timeline& tl) {
  for (const RankSummary& r : tl.ranks) {
    if (r.rank == tl.critical_rank) return r;
  }
  return tl.ranks.front();
}

// The series a task is drawn and counted in.
std::string series(const Task& task) {
  if (task.kind == TaskKind::kCompute) return "compute";
  if (task.kind == TaskKind::kLocal || !task.collective) return "local";
  return std::string(collective::name(*task.collective));
}

// The critical rank's events (by stream, then start).
std::vector<const TimelineEvent*> critical_events(const Timeline& tl) {
  std::vector<const TimelineEvent*> out;
  for (const TimelineEvent& e : tl.events) {
    if (e.rank == tl.critical_rank) out.push_back(&e);
  }
  return out;
}

const Task& task_of(const Timeline& tl, const TimelineEvent& e) {
  return tl.program.tasks[static_cast<std::size_t>(e.task)];
}

std::string figures_table(const Timeline& tl) {
  return report::key_value_table({
      {"step time", ms_text(tl.step_time_us)},
      {"compute", ms_text(tl.compute_us)},
      {"communication", ms_text(tl.communication_us)},
      {"exposed communication", ms_text(tl.exposed_communication_us)},
      {"critical rank",
       std::to_string(tl.critical_rank) + " of " + std::to_string(tl.program.ranks.size())},
      {"tasks per rank", std::to_string(tl.program.tasks.size())},
      {"critical path", std::to_string(tl.critical_path.size()) + " tasks"},
  });
}

}  // namespace

std::vector<ExposedShare> exposed_by_collective(const Timeline& tl) {
  std::vector<std::pair<double, double>> compute;  // sorted, disjoint: one stream
  for (const TimelineEvent* e : critical_events(tl)) {
    if (task_of(tl, *e).stream == 0) compute.emplace_back(e->start_us, e->end_us);
  }
  std::map<std::string, ExposedShare> by_name;
  for (const TimelineEvent* e : critical_events(tl)) {
    const Task& task = task_of(tl, *e);
    if (task.stream == 0) continue;
    double hidden = 0;
    auto it = std::lower_bound(compute.begin(), compute.end(), e->start_us,
                               [](const auto& iv, double t) { return iv.second <= t; });
    for (; it != compute.end() && it->first < e->end_us; ++it) {
      hidden += std::max(0.0, std::min(it->second, e->end_us) - std::max(it->first, e->start_us));
    }
    ExposedShare& share = by_name[series(task)];
    share.name = series(task);
    share.exposed_us += (e->end_us - e->start_us) - hidden;
    ++share.tasks;
  }
  std::vector<ExposedShare> out;
  for (auto& [name, share] : by_name) out.push_back(std::move(share));
  return out;
}

report::GanttChart timeline_gantt(const Timeline& tl) {
  report::GanttChart g;
  g.id = "timeline-chart";
  g.title = rank_title("Step (outlined: the critical path)", tl);
  g.unit = "ms";
  g.span = tl.step_time_us / 1000.0;
  for (const StreamInfo& s : tl.program.streams) g.rows.push_back({s.name, {}});
  std::set<std::int32_t> critical;
  for (const PathEntry& p : tl.critical_path) critical.insert(p.task);
  std::set<std::string> kinds;
  for (const TimelineEvent* e : critical_events(tl)) {
    const Task& task = task_of(tl, *e);
    const std::string kind = series(task);
    kinds.insert(kind);
    g.rows[static_cast<std::size_t>(task.stream)].tasks.push_back(
        {e->start_us / 1000.0, e->end_us / 1000.0, kind,
         task.name + " (" + kind + ") " + core::format_fixed(e->start_us / 1000.0, 3) + " - " +
             ms_text(e->end_us),
         critical.contains(e->task)});
  }
  for (const std::string& k : kinds) g.legend.push_back({k, k});
  return g;
}

report::BarChart stream_busy_chart(const Timeline& tl) {
  report::BarChart c{.id = "busy-chart",
                     .title = rank_title("Busy time per stream", tl),
                     .unit = "ms",
                     .limit = tl.step_time_us / 1000.0,
                     .limit_label = "step " + ms_text(tl.step_time_us)};
  if (tl.ranks.empty()) return c;
  const RankSummary& crit = critical_summary(tl);
  for (std::size_t s = 0; s < tl.program.streams.size(); ++s) {
    const double busy = crit.stream_busy_us[s];
    const double share = tl.step_time_us > 0 ? 100.0 * busy / tl.step_time_us : 0.0;
    c.rows.push_back({tl.program.streams[s].name,
                      {{busy / 1000.0, "busy", "busy ms"}},
                      ms_text(busy) + " (" + core::format_fixed(share, 1) + "%)"});
  }
  return c;
}

std::string timeline_html(const Timeline& tl, std::string_view model) {
  const std::string title = "dtplan simulate: " + std::string(model) + " on " +
                            std::to_string(tl.program.ranks.size()) + " ranks";
  std::string out = report::html_head(title, std::string(report::base_css()) + kSeriesCss);
  out += "<h1>" + xml_escape(title) + "</h1>" + figures_table(tl);
  out += "<h2>Timeline</h2>" + report::render_gantt_chart(timeline_gantt(tl));
  out +=
      "<p class=\"note\">One row per stream of the critical rank; hover a task for its name and "
      "times. Tasks narrower than a pixel are merged with their neighbours of the same pixel "
      "column (the tooltip says how many); a rectangle holding a task of the critical path is "
      "outlined.</p>";
  out += "<h2>Busy time per stream</h2>" + report::render_bar_chart(stream_busy_chart(tl));
  report::BarChart exposed{.id = "exposed-chart",
                           .title = rank_title("Exposed communication by collective", tl),
                           .unit = "ms"};
  for (const ExposedShare& s : exposed_by_collective(tl)) {
    exposed.rows.push_back({s.name,
                            {{s.exposed_us / 1000.0, "exposed", "exposed ms"}},
                            ms_text(s.exposed_us) + " in " + std::to_string(s.tasks) +
                                (s.tasks == 1 ? " task" : " tasks")});
  }
  out += "<h2>Exposed communication</h2>" + report::render_bar_chart(exposed);
  out +=
      "<p class=\"note\">Exposed: the time a collective ran while the compute stream was idle. "
      "Concurrent collectives each count theirs, so the bars can add up to more than the step's "
      "exposed communication (" +
      ms_text(tl.exposed_communication_us) + ").</p>";
  out += report::html_tail();
  return out;
}

}  // namespace dtplan::sim
