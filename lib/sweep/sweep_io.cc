#include "sweep/sweep_io.h"

#include <nlohmann/json.hpp>

namespace dtplan::sweep {

namespace {

using Json = nlohmann::ordered_json;

Json row_json(const SweepRow& row, std::size_t rank) {
  const MeshEvaluation& e = row.evaluation;
  Json flatten = Json::array();
  for (const mesh::FlattenSpec& f : row.mesh.flatten) flatten.push_back(f.dims);
  Json out;
  out["rank"] = rank;
  out["shape"] = row.mesh.shape;
  out["names"] = row.mesh.names;
  out["flatten"] = std::move(flatten);
  out["step_time_us"] = e.step_time_us;
  out["compute_us"] = e.compute_us;
  out["communication_us"] = e.communication_us;
  out["exposed_us"] = e.exposed_us;
  out["other_us"] = e.other_us();
  out["memory_bytes_per_rank"] = e.memory_bytes_per_rank;
  out["fits_memory"] = row.fits_memory;
  out["feasible"] = e.feasible;
  out["optimal"] = e.optimal;
  out["tp_within_node"] = row.tp_within_node;
  out["note"] = e.note;
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
  doc["candidates"] = result.rows.size();
  Json rows = Json::array();
  for (std::size_t i = 0; i < result.rows.size(); ++i)
    rows.push_back(row_json(result.rows[i], i + 1));
  doc["results"] = std::move(rows);
  return doc;
}

}  // namespace dtplan::sweep
