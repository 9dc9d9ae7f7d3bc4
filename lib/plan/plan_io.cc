#include "plan/plan_io.h"

#include <limits>
#include <nlohmann/json.hpp>

#include "core/json_io.h"
#include "core/output_file.h"
#include "core/text_file.h"
#include "placement/placement_text.h"
#include "plan/plan_check.h"
#include "redist/mesh_context.h"
#include "redist/redist_plan_check.h"
#include "redist/redist_plan_io.h"

namespace dtplan::plan {

namespace {

using Json = nlohmann::ordered_json;
using core::index_path;
using core::join_path;
using core::JsonReader;

Json nullable_name(const std::string& name) { return name.empty() ? Json(nullptr) : Json(name); }

Json collective_json(const CollectiveSummary& c) {
  return {{"collective", collective::name(c.kind)},
          {"mesh_dims", c.mesh_dims},
          {"flattened_mesh", nullable_name(c.flattened)},
          {"group_size", c.group_size},
          {"count", c.count},
          {"bytes", c.bytes},
          {"time_us", c.time_us}};
}

Json op_json(const PlanOp& op) {
  Json j = {{"name", op.name},
            {"op", op.op},
            {"phase", phase_name(op.phase)},
            {"layer", op.layer},
            {"role", std::string(core::plan_role_name(op.role))},
            {"inputs", op.inputs},
            {"shape", op.shape},
            {"dtype", core::dtype_name(op.dtype)},
            {"placements", placement::format_placements(op.placements)},
            {"strategy", op.strategy},
            {"options", op.options},
            {"compute_us", op.compute_us}};
  if (op.schedule != OpSchedule::kMicrobatch) j["schedule"] = op_schedule_name(op.schedule);
  return j;
}

// A field of `obj` read by `read` (a JsonReader member) at join_path(base, key).
template <class T, class Read>
core::Result<T> field(const JsonReader& r, const Json& obj, std::string_view key,
                      const std::string& base, Read read) {
  DTPLAN_TRY(const Json* j, r.get(obj, key, base));
  return (r.*read)(*j, join_path(base, key));
}

core::Result<std::int64_t> int_field(const JsonReader& r, const Json& obj, std::string_view key,
                                     const std::string& base) {
  return field<std::int64_t>(r, obj, key, base, &JsonReader::integer);
}
core::Result<double> number_field(const JsonReader& r, const Json& obj, std::string_view key,
                                  const std::string& base) {
  DTPLAN_TRY(double v, field<double>(r, obj, key, base, &JsonReader::number));
  if (!(v >= 0)) return r.error(join_path(base, key), "must be a number >= 0");
  return v;
}
core::Result<std::string> string_field(const JsonReader& r, const Json& obj, std::string_view key,
                                       const std::string& base) {
  return field<std::string>(r, obj, key, base, &JsonReader::string);
}
core::Result<std::int32_t> int32_field(const JsonReader& r, const Json& obj, std::string_view key,
                                       const std::string& base) {
  DTPLAN_TRY(std::int64_t v, int_field(r, obj, key, base));
  if (v < std::numeric_limits<std::int32_t>::min() ||
      v > std::numeric_limits<std::int32_t>::max()) {
    return r.error(join_path(base, key), "out of range");
  }
  return static_cast<std::int32_t>(v);
}
core::Result<std::vector<std::int32_t>> int32_list(const JsonReader& r, const Json& obj,
                                                   std::string_view key, const std::string& base) {
  DTPLAN_TRY(std::vector<std::int64_t> v,
             field<std::vector<std::int64_t>>(r, obj, key, base, &JsonReader::ints));
  std::vector<std::int32_t> out;
  for (std::int64_t x : v) {
    if (x < std::numeric_limits<std::int32_t>::min() ||
        x > std::numeric_limits<std::int32_t>::max()) {
      return r.error(join_path(base, key), "out of range");
    }
    out.push_back(static_cast<std::int32_t>(x));
  }
  return out;
}

core::Result<CollectiveSummary> read_collective(const JsonReader& r, const Json& j,
                                                const std::string& path) {
  CollectiveSummary c;
  DTPLAN_TRY(std::string kind, string_field(r, j, "collective", path));
  DTPLAN_TRY(c.kind,
             r.at(collective::parse_collective(kind, "collective"), join_path(path, "collective")));
  DTPLAN_TRY(c.mesh_dims, int32_list(r, j, "mesh_dims", path));
  DTPLAN_TRY(const Json* flat, r.get(j, "flattened_mesh", path));
  if (!flat->is_null()) {
    DTPLAN_TRY(c.flattened, r.string(*flat, join_path(path, "flattened_mesh")));
  }
  DTPLAN_TRY(c.group_size, int_field(r, j, "group_size", path));
  DTPLAN_TRY(c.count, int_field(r, j, "count", path));
  DTPLAN_TRY(c.bytes, int_field(r, j, "bytes", path));
  DTPLAN_TRY(c.time_us, number_field(r, j, "time_us", path));
  return c;
}

core::Result<PlanOp> read_op(const JsonReader& r, const Json& j, const std::string& path,
                             std::size_t mesh_ndim) {
  PlanOp op;
  DTPLAN_TRY(op.name, string_field(r, j, "name", path));
  DTPLAN_TRY(op.op, string_field(r, j, "op", path));
  DTPLAN_TRY(std::string phase, string_field(r, j, "phase", path));
  DTPLAN_TRY(op.phase, r.at(parse_phase(phase, "phase"), join_path(path, "phase")));
  DTPLAN_TRY(op.layer, int32_field(r, j, "layer", path));
  DTPLAN_TRY(std::string role, string_field(r, j, "role", path));
  DTPLAN_TRY(op.role, r.at(core::parse_plan_role(role), join_path(path, "role")));
  DTPLAN_TRY(op.inputs, int32_list(r, j, "inputs", path));
  DTPLAN_TRY(op.shape, field<std::vector<std::int64_t>>(r, j, "shape", path, &JsonReader::ints));
  DTPLAN_TRY(std::string dtype, string_field(r, j, "dtype", path));
  DTPLAN_TRY(op.dtype, r.at(core::parse_dtype(dtype, "dtype"), join_path(path, "dtype")));
  DTPLAN_TRY(std::string placements, string_field(r, j, "placements", path));
  DTPLAN_TRY(placement::PlacementList list,
             r.at(placement::parse_placement_list(placements, "placements"),
                  join_path(path, "placements")));
  if (list.placements.size() != mesh_ndim) {
    return r.error(join_path(path, "placements"), "expected " + std::to_string(mesh_ndim) +
                                                      " placements, got '" + placements + "'");
  }
  op.placements = std::move(list.placements);
  DTPLAN_TRY(op.strategy, string_field(r, j, "strategy", path));
  DTPLAN_TRY(op.options, int32_field(r, j, "options", path));
  DTPLAN_TRY(op.compute_us, number_field(r, j, "compute_us", path));
  if (j.contains("schedule")) {
    DTPLAN_TRY(std::string schedule, string_field(r, j, "schedule", path));
    DTPLAN_TRY(op.schedule,
               r.at(parse_op_schedule(schedule, "schedule"), join_path(path, "schedule")));
  }
  return op;
}

Json fused_json(const FusedMatmul& f) {
  Json collectives = Json::array();
  for (const StepRef& c : f.collectives) {
    collectives.push_back({{"redistribution", c.redistribution}, {"step", c.step}});
  }
  return {{"kind", fused_kind_name(f.kind)},
          {"matmuls", f.matmuls},
          {"collectives", std::move(collectives)},
          {"chunks", f.chunks},
          {"chunk_bytes", f.chunk_bytes},
          {"copy_us", f.copy_us},
          {"fused_us", f.fused_us}};
}

// One entry of "fused_matmuls" (plan/fused_matmul.h); its prices are checked by
// check_plan_prices.
core::Result<FusedMatmul> read_fused(const JsonReader& r, const Json& j, const std::string& path) {
  FusedMatmul f;
  DTPLAN_TRY(std::string kind, string_field(r, j, "kind", path));
  DTPLAN_TRY(f.kind, r.at(parse_fused_kind(kind, "kind"), join_path(path, "kind")));
  DTPLAN_TRY(f.matmuls, int32_list(r, j, "matmuls", path));
  const std::string cpath = join_path(path, "collectives");
  DTPLAN_TRY(const Json* collectives, r.list(j, "collectives", path));
  for (std::size_t i = 0; i < collectives->size(); ++i) {
    const std::string at = index_path(cpath, i);
    StepRef ref;
    DTPLAN_TRY(ref.redistribution, int32_field(r, (*collectives)[i], "redistribution", at));
    DTPLAN_TRY(ref.step, int32_field(r, (*collectives)[i], "step", at));
    f.collectives.push_back(ref);
  }
  DTPLAN_TRY(f.chunks, int_field(r, j, "chunks", path));
  DTPLAN_TRY(f.chunk_bytes, int_field(r, j, "chunk_bytes", path));
  DTPLAN_TRY(f.copy_us, number_field(r, j, "copy_us", path));
  DTPLAN_TRY(f.fused_us, number_field(r, j, "fused_us", path));
  return f;
}

// "training" (absent in plans written before it: one microbatch, nothing recomputed).
core::Result<core::TrainingOptions> read_training(const JsonReader& r, const Json& doc) {
  core::TrainingOptions t;
  if (!doc.contains("training")) return t;
  DTPLAN_TRY(const Json* j, r.get(doc, "training", ""));
  DTPLAN_TRY(std::string checkpoint, string_field(r, *j, "checkpoint", "training"));
  DTPLAN_TRY(t.checkpoint,
             r.at(core::parse_checkpoint_policy(checkpoint, "checkpoint"), "training.checkpoint"));
  DTPLAN_TRY(t.grad_accum, int_field(r, *j, "grad_accum", "training"));
  DTPLAN_TRY(std::string sync, string_field(r, *j, "grad_sync", "training"));
  DTPLAN_TRY(t.grad_sync, r.at(core::parse_grad_sync(sync, "grad_sync"), "training.grad_sync"));
  // "compile" (absent in plans written before it: eager).
  if (j->contains("compile")) {
    DTPLAN_TRY(bool compiled, (field<bool>(r, *j, "compile", "training", &JsonReader::boolean)));
    t.execution = compiled ? core::Execution::kCompiled : core::Execution::kEager;
  }
  // "float8" (absent in plans written before it: none).
  if (j->contains("float8")) {
    DTPLAN_TRY(std::string recipe, string_field(r, *j, "float8", "training"));
    DTPLAN_TRY(t.float8, r.at(core::parse_float8_recipe(recipe, "float8"), "training.float8"));
  }  // "async_tp" (absent in plans written before it: off).
  if (j->contains("async_tp")) {
    DTPLAN_TRY(bool on, (field<bool>(r, *j, "async_tp", "training", &JsonReader::boolean)));
    t.async_tp = on ? core::AsyncTp::kOn : core::AsyncTp::kOff;
  }

  return t;
}

core::Result<MemorySummary> read_memory(const JsonReader& r, const Json& doc) {
  DTPLAN_TRY(const Json* j, r.get(doc, "memory", ""));
  MemorySummary m;
  for (auto [key, member] : {std::pair{"parameter_bytes", &MemorySummary::parameter_bytes},
                             std::pair{"gradient_bytes", &MemorySummary::gradient_bytes},
                             std::pair{"optimizer_bytes", &MemorySummary::optimizer_bytes},
                             std::pair{"activation_bytes", &MemorySummary::activation_bytes},
                             std::pair{"peak_bytes_per_rank", &MemorySummary::peak_bytes_per_rank},
                             std::pair{"limit_bytes", &MemorySummary::limit_bytes}}) {
    DTPLAN_TRY(m.*member, int_field(r, *j, key, "memory"));
    if (m.*member < 0) return r.error(join_path("memory", key), "must be >= 0");
  }
  return m;
}

core::Result<CostSummary> read_cost(const JsonReader& r, const Json& doc) {
  DTPLAN_TRY(const Json* j, r.get(doc, "cost", ""));
  CostSummary c;
  DTPLAN_TRY(c.compute_us, number_field(r, *j, "compute_us", "cost"));
  DTPLAN_TRY(c.communication_us, number_field(r, *j, "communication_us", "cost"));
  DTPLAN_TRY(c.redistribution_us, number_field(r, *j, "redistribution_us", "cost"));
  DTPLAN_TRY(c.total_us, number_field(r, *j, "total_us", "cost"));
  return c;
}

core::Result<SolverSummary> read_solver(const JsonReader& r, const Json& doc) {
  DTPLAN_TRY(const Json* j, r.get(doc, "solver", ""));
  SolverSummary s;
  DTPLAN_TRY(s.name, string_field(r, *j, "name", "solver"));
  DTPLAN_TRY(s.time_s, number_field(r, *j, "time_s", "solver"));
  DTPLAN_TRY(s.objective_us, number_field(r, *j, "objective_us", "solver"));
  DTPLAN_TRY(s.lower_bound_us, number_field(r, *j, "lower_bound_us", "solver"));
  DTPLAN_TRY(s.optimal, field<bool>(r, *j, "optimal", "solver", &JsonReader::boolean));
  if (j->contains("stop_reason")) {
    DTPLAN_TRY(s.stop_reason, string_field(r, *j, "stop_reason", "solver"));
  }
  return s;
}

}  // namespace

Json memory_json(const MemorySummary& m) {
  return {{"parameter_bytes", m.parameter_bytes},         {"gradient_bytes", m.gradient_bytes},
          {"optimizer_bytes", m.optimizer_bytes},         {"activation_bytes", m.activation_bytes},
          {"peak_bytes_per_rank", m.peak_bytes_per_rank}, {"limit_bytes", m.limit_bytes}};
}

Json plan_summary_json(const Plan& plan) {
  Json doc;
  doc["format"] = kPlanFormat;
  doc["version"] = kPlanVersion;
  doc["model"] = plan.model;
  doc["layers"] = plan.layers;
  doc["training"] = {{"checkpoint", core::checkpoint_policy_name(plan.training.checkpoint)},
                     {"grad_accum", plan.training.grad_accum},
                     {"grad_sync", core::grad_sync_name(plan.training.grad_sync)},
                     {"compile", plan.training.execution == core::Execution::kCompiled},
                     {"float8", core::float8_recipe_name(plan.training.float8)},
                     {"async_tp", plan.training.async_tp == core::AsyncTp::kOn}};
  doc["mesh"] = redist::mesh_description_json(plan.mesh);
  doc["nodes"] = plan.ops.size();
  doc["strategies"] = plan.strategies;
  doc["solver"] = {{"name", plan.solver.name},
                   {"time_s", plan.solver.time_s},
                   {"objective_us", plan.solver.objective_us},
                   {"lower_bound_us", plan.solver.lower_bound_us},
                   {"optimal", plan.solver.optimal},
                   {"stop_reason", plan.solver.stop_reason}};
  doc["cost"] = {{"compute_us", plan.cost.compute_us},
                 {"communication_us", plan.cost.communication_us},
                 {"redistribution_us", plan.cost.redistribution_us},
                 {"total_us", plan.cost.total_us}};
  doc["memory"] = memory_json(plan.memory);
  Json collectives = Json::array();
  for (const CollectiveSummary& c : plan.collectives) collectives.push_back(collective_json(c));
  doc["collectives"] = collectives;
  Json warnings = Json::array();
  for (const redist::Warning& w : plan.warnings) warnings.push_back(redist::warning_json(w));
  doc["warnings"] = warnings;
  return doc;
}

Json plan_json(const Plan& plan) {
  Json doc = plan_summary_json(plan);
  Json ops = Json::array();
  for (const PlanOp& op : plan.ops) ops.push_back(op_json(op));
  doc["ops"] = std::move(ops);
  Json redistributions = Json::array();
  for (const PlanRedistribution& rd : plan.redistributions) {
    Json j = {{"consumer", rd.consumer}, {"slot", rd.slot}, {"producer", rd.producer}};
    redist::add_plan_body(rd.plan, j);
    redistributions.push_back(std::move(j));
  }
  doc["redistributions"] = std::move(redistributions);
  if (plan.training.async_tp == core::AsyncTp::kOn) {
    Json fused = Json::array();
    for (const FusedMatmul& f : plan.fused_matmuls) fused.push_back(fused_json(f));
    doc["fused_matmuls"] = std::move(fused);
  }
  return doc;
}

std::string plan_to_json(const Plan& plan) { return plan_json(plan).dump(1) + "\n"; }

bool is_model_plan_json(std::string_view text) {
  const auto doc = core::parse_json(text, "");
  if (!doc.ok() || !doc->is_object()) return false;
  auto it = doc->find("format");
  return it != doc->end() && it->is_string() && it->get<std::string>() == kPlanFormat;
}

core::Result<Plan> read_plan_json(std::string_view text, std::string_view source) {
  DTPLAN_TRY(const Json doc, core::parse_json(text, source));
  const JsonReader r(source);
  DTPLAN_TRY(std::string format, string_field(r, doc, "format", ""));
  if (format != kPlanFormat) {
    return r.error("format", "expected '" + std::string(kPlanFormat) + "', got '" + format + "'");
  }
  DTPLAN_TRY(std::int64_t version, int_field(r, doc, "version", ""));
  if (version != kPlanVersion) {
    return r.error("version", "version " + std::to_string(version) +
                                  " is not supported (this "
                                  "dtplan reads version " +
                                  std::to_string(kPlanVersion) + ")");
  }
  Plan plan;
  DTPLAN_TRY(plan.model, string_field(r, doc, "model", ""));
  DTPLAN_TRY(plan.layers, int32_field(r, doc, "layers", ""));
  DTPLAN_TRY(plan.training, read_training(r, doc));
  DTPLAN_TRY(const Json* mesh_json, r.get(doc, "mesh", ""));
  DTPLAN_TRY(plan.mesh, redist::read_mesh_description(r, *mesh_json, "mesh"));
  DTPLAN_TRY(mesh::DeviceMesh built, r.at(redist::build_described_mesh(plan.mesh), "mesh"));
  DTPLAN_TRY(
      redist::MeshContext ctx,
      r.at(redist::MeshContext::make(built, plan.mesh.gpus_per_node, plan.mesh.hardware), "mesh"));
  if (auto s = redist::check_mesh_description(plan.mesh, ctx, "mesh"); !s.ok()) {
    return s.error().with_context(source);
  }
  DTPLAN_TRY(plan.strategies, int_field(r, doc, "strategies", ""));
  DTPLAN_TRY(plan.solver, read_solver(r, doc));
  DTPLAN_TRY(plan.cost, read_cost(r, doc));
  DTPLAN_TRY(plan.memory, read_memory(r, doc));
  DTPLAN_TRY(const Json* collectives, r.list(doc, "collectives", ""));
  for (std::size_t i = 0; i < collectives->size(); ++i) {
    DTPLAN_TRY(CollectiveSummary c,
               read_collective(r, (*collectives)[i], index_path("collectives", i)));
    plan.collectives.push_back(std::move(c));
  }
  DTPLAN_TRY(const Json* warnings, r.list(doc, "warnings", ""));
  for (std::size_t i = 0; i < warnings->size(); ++i) {
    DTPLAN_TRY(redist::Warning w,
               redist::read_warning(r, (*warnings)[i], index_path("warnings", i)));
    plan.warnings.push_back(std::move(w));
  }
  DTPLAN_TRY(const Json* ops, r.list(doc, "ops", ""));
  plan.ops.reserve(ops->size());
  for (std::size_t i = 0; i < ops->size(); ++i) {
    DTPLAN_TRY(PlanOp op, read_op(r, (*ops)[i], index_path("ops", i), plan.mesh.shape.size()));
    plan.ops.push_back(std::move(op));
  }
  DTPLAN_TRY(std::int64_t nodes, int_field(r, doc, "nodes", ""));
  if (nodes != static_cast<std::int64_t>(plan.ops.size())) {
    return r.error("nodes", std::to_string(nodes) + " is not the number of ops (" +
                                std::to_string(plan.ops.size()) + ")");
  }
  DTPLAN_TRY(const Json* redistributions, r.list(doc, "redistributions", ""));
  for (std::size_t i = 0; i < redistributions->size(); ++i) {
    const std::string path = index_path("redistributions", i);
    const Json& j = (*redistributions)[i];
    DTPLAN_TRY(std::int32_t consumer, int32_field(r, j, "consumer", path));
    DTPLAN_TRY(std::int32_t slot, int32_field(r, j, "slot", path));
    DTPLAN_TRY(std::int32_t producer, int32_field(r, j, "producer", path));
    DTPLAN_TRY(redist::RedistPlan body, redist::read_plan_body(r, j, path, plan.mesh, ctx));
    plan.redistributions.push_back({consumer, slot, producer, std::move(body)});
  }
  if (doc.contains("fused_matmuls")) {
    DTPLAN_TRY(const Json* fused, r.list(doc, "fused_matmuls", ""));
    for (std::size_t i = 0; i < fused->size(); ++i) {
      DTPLAN_TRY(FusedMatmul f, read_fused(r, (*fused)[i], index_path("fused_matmuls", i)));
      plan.fused_matmuls.push_back(std::move(f));
    }
  }
  if (auto s = check_plan(plan); !s.ok()) return s.error().with_context(source);
  if (auto s = check_read_plan(plan); !s.ok()) return s.error().with_context(source);
  return plan;
}

core::Result<Plan> load_plan_file(const std::string& path) {
  DTPLAN_TRY(std::string text, core::read_text_file(path, "plan file"));
  return read_plan_json(text, path);
}

core::Status save_plan_file(const Plan& plan, const std::string& path) {
  return core::write_output_file(path, plan_to_json(plan), "plan file");
}

}  // namespace dtplan::plan
