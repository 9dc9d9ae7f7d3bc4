#include "sim/step_report_io.h"

#include "plan/plan_io.h"
#include "redist/redist_plan_io.h"

namespace dtplan::sim {

namespace {

using Json = nlohmann::ordered_json;

Json redistribution_json(const plan::PlanRedistribution& r, const RedistSimulation& s,
                         std::size_t index) {
  Json j;
  j["index"] = index;
  j["consumer"] = r.consumer;
  j["slot"] = r.slot;
  j["producer"] = r.producer;
  j["src"] = placement::to_string(r.plan.src);
  j["dst"] = placement::format_placement_list(r.plan.dst);
  j["steps"] = r.plan.steps.size();
  std::int64_t groups = 0;
  for (const auto& step : s.steps) groups += static_cast<std::int64_t>(step.size());
  j["collectives"] = groups;
  j["cost_us"] = r.plan.total_cost_us;
  if (s.verify) j["verify"] = verify_json(*s.verify);
  if (!s.skipped.empty()) j["verify_skipped"] = s.skipped;
  return j;
}

}  // namespace

Json to_json(const StepReport& r) {
  const plan::Plan& plan = *r.plan;
  const ModelSimulation& sim = *r.simulation;
  Json doc;
  doc["kind"] = "model";
  doc["model"] = plan.model;
  doc["ranks"] = sim.redistributions.empty() ? Json() : Json(sim.redistributions[0].world_size);
  Json rows = Json::array();
  for (std::size_t i = 0; i < plan.redistributions.size(); ++i) {
    rows.push_back(redistribution_json(plan.redistributions[i], sim.redistributions[i], i));
  }
  doc["redistributions"] = std::move(rows);
  Json totals = {{"redistributions", plan.redistributions.size()},
                 {"calls", sim.calls},
                 {"collectives", sim.collectives},
                 {"cost_us", r.cost_us}};
  if (r.data) {
    totals["verified"] = sim.verified;
    totals["distinct_verified"] = sim.distinct_verified;
    totals["skipped"] = sim.skipped;
    totals["wrong_elements"] = sim.wrong_elements;
    totals["replicas_bitwise_equal"] = sim.replicas_bitwise_equal;
  }
  doc["totals"] = std::move(totals);
  doc["timeline"] = timeline_json(*r.timeline);
  if (!r.trace_file.empty()) doc["timeline"]["trace"] = r.trace_file;
  if (!r.html_file.empty()) doc["timeline"]["html"] = r.html_file;
  if (r.throughput) doc["throughput"] = throughput_json(*r.throughput);
  doc["memory"] = plan::memory_json(plan.memory);
  Json warnings = Json::array();
  for (const redist::Warning& w : plan.warnings) warnings.push_back(redist::warning_json(w));
  doc["warnings"] = std::move(warnings);
  return doc;
}

Json timeline_json(const Timeline& tl) {
  Json doc;
  doc["step_time_us"] = tl.step_time_us;
  doc["compute_us"] = tl.compute_us;
  doc["communication_us"] = tl.communication_us;
  doc["exposed_communication_us"] = tl.exposed_communication_us;
  doc["critical_rank"] = tl.critical_rank;
  doc["ranks"] = tl.ranks.size();
  doc["tasks"] = tl.program.tasks.size();
  const RankSummary& crit = critical_summary(tl);
  Json streams = Json::array();
  for (std::size_t s = 0; s < tl.program.streams.size(); ++s) {
    streams.push_back({{"name", tl.program.streams[s].name}, {"busy_us", crit.stream_busy_us[s]}});
  }
  doc["streams"] = std::move(streams);
  Json classes = Json::array();
  for (std::int64_t rank : tl.event_ranks) {
    for (const RankSummary& r : tl.ranks) {
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
  for (const PathEntry& p : tl.critical_path) {
    const Task& task = tl.program.tasks[static_cast<std::size_t>(p.task)];
    path.push_back({{"name", task.name},
                    {"kind", task_kind_name(task.kind)},
                    {"stream", tl.program.streams[static_cast<std::size_t>(task.stream)].name},
                    {"rank", p.rank},
                    {"start_us", p.start_us},
                    {"end_us", p.end_us},
                    {"binding", binding_name(p.binding)}});
  }
  doc["critical_path"] = std::move(path);
  return doc;
}

Json throughput_json(const Throughput& rate) {
  Json doc;
  doc["tokens_per_s_per_gpu"] = rate.tokens_per_s_per_gpu;
  doc["mfu"] = rate.mfu;
  doc["model_flops_per_token"] = rate.model_flops_per_token;
  doc["tokens_per_step"] = rate.tokens_per_step;
  return doc;
}

Json verify_json(const VerifyReport& r) {
  Json j;
  j["ranks"] = r.ranks;
  j["wrong_elements"] = r.wrong_elements;
  j["replicas_bitwise_equal"] = r.replicas_bitwise_equal;
  j["elements"] = r.elements;
  j["values"] = std::string(value_kind_name(r.values));
  j["exact"] = r.exact;
  j["replica_sets"] = r.replica_sets;
  j["differing_replica_sets"] = r.differing_replica_sets;
  j["max_replica_variants"] = r.max_replica_variants;
  j["max_error"] = r.max_error;
  j["collectives"] = r.trace.empty() ? 0 : r.trace.back().call + 1;
  if (!r.first_wrong.empty()) j["first_wrong"] = r.first_wrong;
  return j;
}

}  // namespace dtplan::sim
