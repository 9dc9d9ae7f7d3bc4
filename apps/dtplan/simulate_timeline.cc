#include "simulate_timeline.h"

#include <CLI/CLI.hpp>

#include "core/output_file.h"
#include "hardware_arg.h"
#include "number_arg.h"
#include "output.h"
#include "sim/chrome_trace_io.h"
#include "sim/timeline_html.h"

namespace dtplan::cli {

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

}  // namespace dtplan::cli
