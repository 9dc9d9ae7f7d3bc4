#include "simulate_timeline.h"

#include <CLI/CLI.hpp>
#include <map>

#include "core/output_file.h"
#include "core/text_table.h"
#include "core/units.h"
#include "hardware_arg.h"
#include "number_arg.h"
#include "output.h"
#include "sim/chrome_trace_io.h"
#include "sim/timeline_html.h"

namespace dtplan::cli {

namespace {

std::string us(double v) { return core::format_fixed(v, 2); }

std::string percent(double part, double whole) {
  return whole > 0 ? core::format_fixed(100.0 * part / whole, 1) : "0.0";
}

const sim::RankSummary& critical_summary(const sim::Timeline& tl) {
  for (const sim::RankSummary& r : tl.ranks) {
    if (r.rank == tl.critical_rank) return r;
  }
  return tl.ranks.front();
}

}  // namespace

void add_timeline_flags(CLI::App& app, TimelineFlags& flags) {
  app.add_option("--trace", flags.trace, "Write the step timeline as a Chrome/Perfetto trace")
      ->type_name("FILE");
  app.add_option("--html", flags.html,
                 "Write the critical rank's step as a self-contained HTML page (Gantt chart, "
                 "busy time per stream, exposed communication by collective)")
      ->type_name("FILE");
  app.add_flag("--all-ranks", flags.all_ranks, "Put every rank in the trace");
  app.add_option("--trace-ranks", flags.trace_ranks,
                 "Representative ranks in the trace: one per class of ranks with equal "
                 "timelines, this many classes (and the critical rank)")
      ->transform(integer_in(1, 1 << 20));
  app.add_option("--prefetch", flags.prefetch,
                 "How many blocks ahead parameter all-gathers may start (FSDP prefetch; -1: "
                 "unbounded)")
      ->transform(integer_in(-1, 1 << 20));
  app.add_flag("--no-contention", flags.no_contention,
               "Concurrent collectives do not share NIC / NVLink bandwidth");
}

core::Result<sim::TimelineOptions> timeline_options(const plan::Plan& plan,
                                                    const TimelineFlags& flags) {
  sim::TimelineOptions o;
  o.prefetch_depth = flags.prefetch;
  o.contention = !flags.no_contention;
  o.all_ranks = flags.all_ranks;
  o.trace_ranks = flags.trace_ranks;
  if (!plan.mesh.hardware.empty()) {
    DTPLAN_TRY(o.hardware, load_hardware_arg(plan.mesh.hardware, "plan mesh.hardware"));
  }
  return o;
}

nlohmann::ordered_json timeline_json(const sim::Timeline& tl) {
  Json doc;
  doc["step_time_us"] = tl.step_time_us;
  doc["compute_us"] = tl.compute_us;
  doc["communication_us"] = tl.communication_us;
  doc["exposed_communication_us"] = tl.exposed_communication_us;
  doc["critical_rank"] = tl.critical_rank;
  doc["ranks"] = tl.ranks.size();
  doc["tasks"] = tl.program.tasks.size();
  const sim::RankSummary& crit = critical_summary(tl);
  Json streams = Json::array();
  for (std::size_t s = 0; s < tl.program.streams.size(); ++s) {
    streams.push_back({{"name", tl.program.streams[s].name}, {"busy_us", crit.stream_busy_us[s]}});
  }
  doc["streams"] = std::move(streams);
  Json classes = Json::array();
  for (std::int64_t rank : tl.event_ranks) {
    for (const sim::RankSummary& r : tl.ranks) {
      if (r.rank != rank) continue;
      classes.push_back({{"rank", r.rank},
                         {"end_us", r.end_us},
                         {"compute_busy_us", r.compute_busy_us},
                         {"communication_busy_us", r.communication_busy_us},
                         {"exposed_communication_us", r.exposed_communication_us},
                         {"idle_us", r.idle_us},
                         {"stream_busy_us", r.stream_busy_us}});
    }
  }
  doc["rank_classes"] = std::move(classes);
  Json path = Json::array();
  for (const sim::PathEntry& p : tl.critical_path) {
    const sim::Task& task = tl.program.tasks[static_cast<std::size_t>(p.task)];
    path.push_back({{"name", task.name},
                    {"kind", sim::task_kind_name(task.kind)},
                    {"stream", tl.program.streams[static_cast<std::size_t>(task.stream)].name},
                    {"rank", p.rank},
                    {"start_us", p.start_us},
                    {"end_us", p.end_us},
                    {"binding", sim::binding_name(p.binding)}});
  }
  doc["critical_path"] = std::move(path);
  return doc;
}

std::string timeline_text(const sim::Timeline& tl) {
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

  const sim::RankSummary& crit = critical_summary(tl);
  core::TextTable streams({{"stream", "", core::Align::kLeft}, {"busy", "us"}, {"share", "%"}},
                          "busy time per stream (rank " + std::to_string(crit.rank) + ")");
  for (std::size_t s = 0; s < tl.program.streams.size(); ++s) {
    streams.add_row({tl.program.streams[s].name, us(crit.stream_busy_us[s]),
                     percent(crit.stream_busy_us[s], tl.step_time_us)});
  }
  text += streams.render() + "\n";

  std::map<sim::TaskKind, std::pair<std::int64_t, double>> by_kind;
  for (const sim::PathEntry& p : tl.critical_path) {
    auto& [n, t] = by_kind[tl.program.tasks[static_cast<std::size_t>(p.task)].kind];
    ++n;
    t += p.end_us - p.start_us;
  }
  core::TextTable kinds({{"kind", "", core::Align::kLeft}, {"tasks", ""}, {"time", "us"}},
                        "critical path: " + std::to_string(tl.critical_path.size()) + " tasks");
  for (const auto& [kind, nt] : by_kind) {
    kinds.add_row(
        {std::string(sim::task_kind_name(kind)), std::to_string(nt.first), us(nt.second)});
  }
  text += kinds.render() + "\n";

  core::TextTable comm({{"task", "", core::Align::kLeft},
                        {"stream", "", core::Align::kLeft},
                        {"rank", ""},
                        {"start", "us"},
                        {"end", "us"},
                        {"after", "", core::Align::kLeft}},
                       "communication on the critical path");
  for (const sim::PathEntry& p : tl.critical_path) {
    const sim::Task& task = tl.program.tasks[static_cast<std::size_t>(p.task)];
    if (task.kind == sim::TaskKind::kCompute) continue;
    comm.add_row({task.name, tl.program.streams[static_cast<std::size_t>(task.stream)].name,
                  std::to_string(p.rank), us(p.start_us), us(p.end_us),
                  std::string(sim::binding_name(p.binding))});
  }
  text += comm.render();
  return text;
}

core::Result<sim::Timeline> run_timeline(const plan::Plan& plan, const TimelineFlags& flags) {
  DTPLAN_TRY(sim::TimelineOptions options, timeline_options(plan, flags));
  DTPLAN_TRY(sim::Timeline tl, sim::simulate_step(plan, options));
  if (!flags.trace.empty()) {
    DTPLAN_CHECK(core::write_output_file(flags.trace, sim::chrome_trace_json(tl), "--trace"));
  }
  if (!flags.html.empty()) {
    DTPLAN_CHECK(core::write_output_file(flags.html, sim::timeline_html(tl, plan.model), "--html"));
  }
  return tl;
}

std::optional<sim::Throughput> step_throughput(const plan::Plan& plan,
                                               const sim::Timeline& timeline,
                                               const cost::HardwareProfile& profile) {
  const double peak = profile.gpu.peak_flop_per_s[static_cast<std::size_t>(core::DType::kBF16)];
  const auto gpus = static_cast<std::int64_t>(timeline.program.ranks.size());
  if (!(peak > 0) || !(timeline.step_time_us > 0) || gpus == 0) return std::nullopt;
  auto rate = sim::plan_throughput(plan, timeline.step_time_us, gpus, peak);
  if (!rate.ok()) return std::nullopt;
  return *rate;
}

nlohmann::ordered_json throughput_json(const sim::Throughput& rate) {
  Json doc;
  doc["tokens_per_s_per_gpu"] = rate.tokens_per_s_per_gpu;
  doc["mfu"] = rate.mfu;
  doc["model_flops_per_token"] = rate.model_flops_per_token;
  doc["tokens_per_step"] = rate.tokens_per_step;
  return doc;
}

std::string throughput_text(const sim::Throughput& rate) {
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

}  // namespace dtplan::cli
