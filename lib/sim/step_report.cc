#include "sim/step_report.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <vector>

#include "core/text_table.h"
#include "core/units.h"
#include "redist/warning_text.h"
#include "report/nccl_format.h"

namespace dtplan::sim {

namespace {

std::string us(double v) { return core::format_fixed(v, 2); }

std::string percent(double part, double whole) {
  return whole > 0 ? core::format_fixed(100.0 * part / whole, 1) : "0.0";
}

// The rows of a list of n that the text shows: all in order (kFull, or when they fit), else the
// kReportTopRows first by `before`, in that order.
template <class Before>
std::vector<std::size_t> shown_rows(std::size_t n, ReportDetail detail, Before before) {
  std::vector<std::size_t> rows(n);
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  if (detail == ReportDetail::kFull || n <= kReportTopRows) return rows;
  const auto top = static_cast<std::ptrdiff_t>(kReportTopRows);
  std::partial_sort(rows.begin(), rows.begin() + top, rows.end(), before);
  rows.resize(kReportTopRows);
  return rows;
}

// "# 1793 more redistributions (--detail shows them all)\n"; "" when every row was shown.
std::string more_line(std::size_t total, std::size_t shown, const std::string& what) {
  if (shown == total) return "";
  return "# " + std::to_string(total - shown) + " more " + what + " (--detail shows them all)\n";
}

std::int64_t group_collectives(const RedistSimulation& s) {
  std::int64_t groups = 0;
  for (const auto& step : s.steps) groups += static_cast<std::int64_t>(step.size());
  return groups;
}

// One row per redistribution shown: its placements, steps, group collectives, cost and
// verification; the costliest first (by time, then by index) when not all are shown.
std::string redistributions_text(const StepReport& r, ReportDetail detail) {
  const plan::Plan& plan = *r.plan;
  const std::size_t n = plan.redistributions.size();
  const auto cost = [&](std::size_t i) { return plan.redistributions[i].plan.total_cost_us; };
  const std::vector<std::size_t> rows = shown_rows(n, detail, [&](std::size_t a, std::size_t b) {
    return cost(a) != cost(b) ? cost(a) > cost(b) : a < b;
  });
  std::string title =
      "dtplan simulate: " + plan.model + ", " + std::to_string(n) + " redistributions";
  if (rows.size() < n) title += " (the " + std::to_string(rows.size()) + " costliest)";
  core::TextTable t({{"index", ""},
                     {"consumer", ""},
                     {"slot", ""},
                     {"src", "", core::Align::kLeft},
                     {"dst", "", core::Align::kLeft},
                     {"steps", ""},
                     {"collectives", ""},
                     {"time", "us"},
                     {"wrong", ""},
                     {"replicas", "", core::Align::kLeft}},
                    title);
  for (std::size_t i : rows) {
    const plan::PlanRedistribution& p = plan.redistributions[i];
    const RedistSimulation& s = r.simulation->redistributions[i];
    t.add_row({std::to_string(i), std::to_string(p.consumer), std::to_string(p.slot),
               placement::to_string(p.plan.src), placement::format_placement_list(p.plan.dst),
               std::to_string(p.plan.steps.size()), std::to_string(group_collectives(s)),
               report::nccl_float(p.plan.total_cost_us, 8),
               s.verify ? std::to_string(s.verify->wrong_elements) : "-",
               s.verify ? (s.verify->replicas_bitwise_equal ? "equal" : "differ")
                        : (s.skipped.empty() ? "-" : "skipped")});
  }
  return t.render() + more_line(n, rows.size(), "redistributions");
}

// The communication on the critical path: every entry in path order, or the longest first (by
// duration, then start, then task name, then rank) when not all are shown.
std::string path_communication_text(const Timeline& tl, ReportDetail detail) {
  const auto task_of = [&](const PathEntry& p) -> const Task& {
    return tl.program.tasks[static_cast<std::size_t>(p.task)];
  };
  std::vector<const PathEntry*> comm;
  for (const PathEntry& p : tl.critical_path) {
    if (task_of(p).kind != TaskKind::kCompute) comm.push_back(&p);
  }
  const std::vector<std::size_t> rows =
      shown_rows(comm.size(), detail, [&](std::size_t a, std::size_t b) {
        const PathEntry& x = *comm[a];
        const PathEntry& y = *comm[b];
        const double dx = x.end_us - x.start_us;
        const double dy = y.end_us - y.start_us;
        if (dx != dy) return dx > dy;
        if (x.start_us != y.start_us) return x.start_us < y.start_us;
        if (task_of(x).name != task_of(y).name) return task_of(x).name < task_of(y).name;
        return x.rank < y.rank;
      });
  std::string title = "communication on the critical path";
  if (rows.size() < comm.size()) {
    title +=
        " (the " + std::to_string(rows.size()) + " longest of " + std::to_string(comm.size()) + ")";
  }
  core::TextTable t({{"task", "", core::Align::kLeft},
                     {"stream", "", core::Align::kLeft},
                     {"rank", ""},
                     {"start", "us"},
                     {"end", "us"},
                     {"after", "", core::Align::kLeft}},
                    title);
  for (std::size_t i : rows) {
    const PathEntry& p = *comm[i];
    const Task& task = task_of(p);
    t.add_row({task.name, tl.program.streams[static_cast<std::size_t>(task.stream)].name,
               std::to_string(p.rank), us(p.start_us), us(p.end_us),
               std::string(binding_name(p.binding))});
  }
  return t.render() +
         more_line(comm.size(), rows.size(), "communication tasks on the critical path");
}

}  // namespace

StepReport make_step_report(const plan::Plan& plan, const ModelSimulation& simulation,
                            const Timeline& timeline, std::optional<Throughput> throughput,
                            bool data) {
  StepReport r;
  r.plan = &plan;
  r.simulation = &simulation;
  r.timeline = &timeline;
  r.throughput = std::move(throughput);
  r.data = data;
  for (const plan::PlanRedistribution& p : plan.redistributions) r.cost_us += p.plan.total_cost_us;
  return r;
}

std::string to_text(const StepReport& r, ReportDetail detail) {
  const plan::Plan& plan = *r.plan;
  const ModelSimulation& sim = *r.simulation;
  // The headline first: the simulated step, its throughput and the memory per rank.
  std::string out = "# dtplan simulate: " + plan.model + ": simulated step " +
                    core::format_fixed(r.timeline->step_time_us, 2) + " us\n";
  if (r.throughput) out += throughput_text(*r.throughput);
  out += memory_text(plan.memory) + redistributions_text(r, detail);
  out += "# totals: " + std::to_string(plan.redistributions.size()) + " redistributions, " +
         std::to_string(sim.calls) + " collective calls, " + std::to_string(sim.collectives) +
         " group collectives, " + core::format_fixed(r.cost_us, 3) + " us\n";
  if (r.data) {
    out +=
        "# verify: " + std::to_string(sim.verified) + " verified (" +
        std::to_string(sim.distinct_verified) + " distinct), " + std::to_string(sim.skipped) +
        " skipped for size, " + std::to_string(sim.wrong_elements) +
        " wrong elements, replicas bitwise equal: " + (sim.replicas_bitwise_equal ? "yes" : "no") +
        "\n";
  }
  out += timeline_text(*r.timeline, detail);
  if (!r.trace_file.empty()) out += "# trace written to " + r.trace_file + "\n";
  if (!r.html_file.empty()) out += "# html written to " + r.html_file + "\n";
  out += redist::warning_lines(plan.mesh, plan.warnings);
  return out;
}

const RankSummary& critical_summary(const Timeline& tl) {
  for (const RankSummary& r : tl.ranks) {
    if (r.rank == tl.critical_rank) return r;
  }
  return tl.ranks.front();
}

std::string timeline_text(const Timeline& tl, ReportDetail detail) {
  std::string text;
  core::TextTable summary({{"step_time", "us"},
                           {"compute", "us"},
                           {"communication", "us"},
                           {"exposed_comm", "us"},
                           {"exposed", "%"},
                           {"critical_rank", ""},
                           {"ranks", ""},
                           {"tasks", ""}},
                          "step timeline");
  summary.add_row({us(tl.step_time_us), us(tl.compute_us), us(tl.communication_us),
                   us(tl.exposed_communication_us),
                   percent(tl.exposed_communication_us, tl.step_time_us),
                   std::to_string(tl.critical_rank), std::to_string(tl.ranks.size()),
                   std::to_string(tl.program.tasks.size())});
  text += summary.render() + "\n";

  const RankSummary& crit = critical_summary(tl);
  core::TextTable streams({{"stream", "", core::Align::kLeft}, {"busy", "us"}, {"share", "%"}},
                          "busy time per stream (rank " + std::to_string(crit.rank) + ")");
  for (std::size_t s = 0; s < tl.program.streams.size(); ++s) {
    streams.add_row({tl.program.streams[s].name, us(crit.stream_busy_us[s]),
                     percent(crit.stream_busy_us[s], tl.step_time_us)});
  }
  text += streams.render() + "\n";

  std::map<TaskKind, std::pair<std::int64_t, double>> by_kind;
  for (const PathEntry& p : tl.critical_path) {
    auto& [n, t] = by_kind[tl.program.tasks[static_cast<std::size_t>(p.task)].kind];
    ++n;
    t += p.end_us - p.start_us;
  }
  core::TextTable kinds({{"kind", "", core::Align::kLeft}, {"tasks", ""}, {"time", "us"}},
                        "critical path: " + std::to_string(tl.critical_path.size()) + " tasks");
  for (const auto& [kind, nt] : by_kind) {
    kinds.add_row({std::string(task_kind_name(kind)), std::to_string(nt.first), us(nt.second)});
  }
  text += kinds.render() + "\n";
  text += path_communication_text(tl, detail);
  return text;
}

std::string throughput_text(const Throughput& rate) {
  return "# throughput: " + core::format_fixed(rate.tokens_per_s_per_gpu, 1) +
         " tokens/s per GPU, MFU " + core::format_fixed(100.0 * rate.mfu, 1) +
         "% of the dense bf16 peak\n# model FLOPs per token: " +
         core::format_fixed(rate.model_flops_per_token / 1e9, 2) + " G (6 x " +
         std::to_string(rate.parameters) + " parameters + attention " +
         core::format_fixed(rate.attention_flops_per_token / 1e9, 2) + " G), " +
         std::to_string(rate.tokens_per_step) + " tokens per step\n";
}

std::string memory_text(const plan::MemorySummary& m) {
  auto gib = [](std::int64_t bytes) {
    return core::format_fixed(static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0), 2);
  };
  return "# memory per rank (the plan's): peak " + gib(m.peak_bytes_per_rank) +
         " GiB: parameters " + gib(m.parameter_bytes) + ", gradients " + gib(m.gradient_bytes) +
         ", optimizer " + gib(m.optimizer_bytes) + ", activations " + gib(m.activation_bytes) +
         "\n";
}

}  // namespace dtplan::sim
