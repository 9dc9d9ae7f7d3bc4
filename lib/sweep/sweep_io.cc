#include "sweep/sweep_io.h"

#include <nlohmann/json.hpp>

#include "core/json_io.h"
#include "core/strings.h"
#include "sweep/pareto.h"

namespace dtplan::sweep {

namespace {

using Json = nlohmann::ordered_json;

Json row_json(const SweepSetup& setup, const SweepRow& row, std::size_t rank) {
  const MeshEvaluation& e = row.evaluation;
  Json flatten = Json::array();
  for (const mesh::FlattenSpec& f : row.mesh.flatten) flatten.push_back(f.dims);
  Json out;
  out["rank"] = rank;
  out["shape"] = row.mesh.shape;
  out["names"] = row.mesh.names;
  out["flatten"] = std::move(flatten);
  out["batch"] = row_batch(setup, row.mesh);
  out["grad_accum"] = row_grad_accum(setup, row.mesh);
  out["checkpoint"] = row_checkpoint(setup, row.mesh);
  out["parallelize"] = parallelize_name(row.mesh.parallelize);
  out["step_time_us"] = e.step_time_us;
  out["compute_us"] = e.compute_us;
  out["communication_us"] = e.communication_us;
  out["exposed_us"] = e.exposed_us;
  out["other_us"] = e.other_us();
  out["memory_bytes_per_rank"] = e.memory_bytes_per_rank;
  out["tokens_per_step"] = e.tokens_per_step;
  out["tokens_per_s_per_gpu"] = e.tokens_per_s_per_gpu;
  out["mfu"] = e.mfu;
  out["fits_memory"] = row.fits_memory;
  out["feasible"] = e.feasible;
  out["optimal"] = e.optimal;
  out["tp_within_node"] = row.tp_within_node;
  out["note"] = e.note;
  if (!row.error.empty()) out["error"] = row.error;
  return out;
}

Json space_json(const CandidateOptions& o) {
  Json roles;
  roles["dp_replicate"] = o.roles.dp_replicate;
  roles["dp_shard"] = o.roles.dp_shard;
  roles["cp"] = o.roles.cp;
  roles["tp"] = o.roles.tp;
  Json out;
  out["roles"] = std::move(roles);
  out["tp_across_nodes"] = o.tp_across_nodes;
  out["max_tp_per_node"] = o.max_tp_per_node;
  out["batches"] = o.batches;
  out["grad_accums"] = o.grad_accums;
  Json checkpoints = Json::array();
  for (core::CheckpointPolicy p : o.checkpoints)
    checkpoints.push_back(core::checkpoint_policy_name(p));
  out["checkpoints"] = std::move(checkpoints);
  Json plans = Json::array();
  for (Parallelize p : o.parallelize) plans.push_back(parallelize_name(p));
  out["parallelize"] = std::move(plans);
  return out;
}

core::Result<PointOutcome> outcome_from_json(const Json& doc, const core::JsonReader& r) {
  PointOutcome o;
  MeshEvaluation& e = o.evaluation;
  const auto number = [&](const char* key, double& to) -> core::Status {
    DTPLAN_TRY(const Json* j, r.get(doc, key, ""));
    DTPLAN_TRY(to, r.number(*j, key));
    return {};
  };
  DTPLAN_CHECK(number("step_time_us", e.step_time_us));
  DTPLAN_CHECK(number("compute_us", e.compute_us));
  DTPLAN_CHECK(number("communication_us", e.communication_us));
  DTPLAN_CHECK(number("exposed_us", e.exposed_us));
  DTPLAN_TRY(const Json* memory, r.get(doc, "memory_bytes_per_rank", ""));
  DTPLAN_TRY(e.memory_bytes_per_rank, r.integer(*memory, "memory_bytes_per_rank"));
  DTPLAN_TRY(const Json* tokens, r.get(doc, "tokens_per_step", ""));
  DTPLAN_TRY(e.tokens_per_step, r.integer(*tokens, "tokens_per_step"));
  DTPLAN_CHECK(number("tokens_per_s_per_gpu", e.tokens_per_s_per_gpu));
  DTPLAN_CHECK(number("mfu", e.mfu));
  DTPLAN_TRY(const Json* feasible, r.get(doc, "feasible", ""));
  DTPLAN_TRY(e.feasible, r.boolean(*feasible, "feasible"));
  DTPLAN_TRY(const Json* optimal, r.get(doc, "optimal", ""));
  DTPLAN_TRY(e.optimal, r.boolean(*optimal, "optimal"));
  DTPLAN_TRY(const Json* note, r.get(doc, "note", ""));
  DTPLAN_TRY(e.note, r.string(*note, "note"));
  DTPLAN_TRY(const Json* error, r.get(doc, "error", ""));
  DTPLAN_TRY(o.error, r.string(*error, "error"));
  return o;
}

}  // namespace

nlohmann::ordered_json sweep_json(const SweepResult& result) {
  const SweepSetup& s = result.setup;
  Json doc;
  doc["model"] = s.model;
  doc["layers"] = s.layers;
  doc["hardware"] = s.hardware;
  doc["world"] = s.world;
  doc["gpus_per_node"] = s.gpus_per_node;
  doc["dims"] = s.dims;
  doc["memory_limit_bytes"] = s.memory_limit_bytes;
  doc["evaluator"] = s.evaluator;
  doc["batch"] = s.batch;
  doc["seq_len"] = s.seq_len;
  doc["grad_accum"] = s.grad_accum;
  doc["checkpoint"] = s.checkpoint;
  doc["space"] = space_json(s.space);
  doc["candidates"] = result.rows.size();
  Json rows = Json::array();
  for (std::size_t i = 0; i < result.rows.size(); ++i)
    rows.push_back(row_json(s, result.rows[i], i + 1));
  doc["results"] = std::move(rows);
  Json best = Json::array();
  for (std::size_t i : best_per_memory(result)) {
    best.push_back({{"memory_bytes_per_rank", result.rows[i].evaluation.memory_bytes_per_rank},
                    {"rank", i + 1}});
  }
  doc["best_per_memory"] = std::move(best);
  return doc;
}

std::string point_outcome_to_string(const PointOutcome& outcome) {
  const MeshEvaluation& e = outcome.evaluation;
  Json doc;
  doc["step_time_us"] = e.step_time_us;
  doc["compute_us"] = e.compute_us;
  doc["communication_us"] = e.communication_us;
  doc["exposed_us"] = e.exposed_us;
  doc["memory_bytes_per_rank"] = e.memory_bytes_per_rank;
  doc["tokens_per_step"] = e.tokens_per_step;
  doc["tokens_per_s_per_gpu"] = e.tokens_per_s_per_gpu;
  doc["mfu"] = e.mfu;
  doc["feasible"] = e.feasible;
  doc["optimal"] = e.optimal;
  // Control characters, which core::parse_json refuses, written as "<U+XXXX>" as every report
  // prints them; every other byte is kept.
  doc["note"] = core::escape_controls(e.note);
  doc["error"] = core::escape_controls(outcome.error);
  // Doubles print as the shortest text that reads back to the same bits.
  return doc.dump(-1, ' ', false, Json::error_handler_t::replace);
}

core::Result<PointOutcome> point_outcome_from_string(std::string_view text,
                                                     std::string_view source) {
  DTPLAN_TRY(const Json doc, core::parse_json(text, source));
  return outcome_from_json(doc, core::JsonReader(source));
}

}  // namespace dtplan::sweep
