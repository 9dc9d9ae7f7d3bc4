#include "sweep/sweep_io.h"

#include <nlohmann/json.hpp>

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

}  // namespace dtplan::sweep
