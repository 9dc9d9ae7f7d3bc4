#include "redist/redist_plan_io.h"

#include <bit>
#include <limits>

#include "core/json_io.h"
#include "core/limits.h"
#include "core/strings.h"
#include "core/text_file.h"
#include "placement/placement_text.h"
#include "redist/mesh_context.h"
#include "redist/redist_plan_check.h"

namespace dtplan::redist {

namespace {

using Json = nlohmann::ordered_json;
using placement::Placement;

std::optional<std::string> algorithm_text(cost::Algorithm a) {
  if (a == cost::Algorithm::kNone) return std::nullopt;
  return std::string(cost::algorithm_name(a));
}

std::optional<std::string> protocol_text(cost::Protocol p) {
  if (p == cost::Protocol::kNone) return std::nullopt;
  return std::string(cost::protocol_name(p));
}

template <class T>
Json nullable(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

using Reader = core::JsonReader;
using core::index_path;
using core::join_path;

// A list of mesh dims at `path`: integers in [0, core::kMaxMeshDims) (whether the mesh has them
// is checked where the mesh is known).
core::Result<std::vector<std::int32_t>> read_dims(const Reader& r, const Json& j,
                                                  const std::string& path) {
  DTPLAN_TRY(std::vector<std::int64_t> dims, r.ints(j, path));
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= core::kMaxMeshDims) {
      return r.error(index_path(path, i),
                     "mesh dim " + std::to_string(dims[i]) + " does not exist");
    }
  }
  return std::vector<std::int32_t>(dims.begin(), dims.end());
}

core::Result<RedistState> read_state(const Reader& r, const Json& j, const std::string& path,
                                     std::size_t ndim) {
  DTPLAN_TRY(std::string text, r.string(j, path));
  DTPLAN_TRY(placement::PlacementList list,
             r.at(placement::parse_placement_list(text, "state"), path));
  if (list.placements.size() != ndim) {
    return r.error(path, "expected " + std::to_string(ndim) + " placements, got '" + text + "'");
  }
  DTPLAN_TRY(
      placement::ShardOrder order,
      r.at(placement::shard_order_from_positions(list.placements, list.order_positions), path));
  return RedistState{std::move(list.placements), std::move(order)};
}

template <class E>
core::Result<E> by_name(const Reader& r, const Json& j, const std::string& path, E none, E last,
                        std::string_view (*name)(E)) {
  if (j.is_null()) return none;
  DTPLAN_TRY(std::string text, r.string(j, path));
  for (auto i = 0; i <= static_cast<int>(last); ++i) {
    if (name(static_cast<E>(i)) == text) return static_cast<E>(i);
  }
  return r.error(path, "unknown name '" + text + "'");
}

core::Result<PlanStep> read_step(const Reader& r, const Json& j, const std::string& path,
                                 std::size_t ndim) {
  PlanStep s;
  DTPLAN_TRY(const Json* coll, r.get(j, "collective", path));
  DTPLAN_TRY(std::string kind, r.string(*coll, path + ".collective"));
  DTPLAN_TRY(s.transform.kind, r.at(parse_step_kind(kind, "collective"), path + ".collective"));
  DTPLAN_TRY(const Json* dims, r.get(j, "mesh_dims", path));
  DTPLAN_TRY(s.transform.mesh_dims, read_dims(r, *dims, path + ".mesh_dims"));
  for (std::int32_t d : s.transform.mesh_dims) {
    if (static_cast<std::size_t>(d) >= ndim) {
      return r.error(path + ".mesh_dims", "mesh dim " + std::to_string(d) + " does not exist");
    }
  }
  DTPLAN_TRY(const Json* flat, r.get(j, "flattened_mesh", path));
  if (!flat->is_null()) {
    DTPLAN_TRY(s.transform.flattened_mesh, r.string(*flat, path + ".flattened_mesh"));
    if (s.transform.flattened_mesh.empty()) {
      return r.error(path + ".flattened_mesh", "expected a name or null");
    }
  }
  DTPLAN_TRY(const Json* src, r.get(j, "src", path));
  DTPLAN_TRY(std::string src_text, r.string(*src, path + ".src"));
  DTPLAN_TRY(s.transform.src, r.at(placement::parse_placement(src_text, "src"), path + ".src"));
  DTPLAN_TRY(const Json* dst, r.get(j, "dst", path));
  DTPLAN_TRY(std::string dst_text, r.string(*dst, path + ".dst"));
  DTPLAN_TRY(s.transform.dst, r.at(placement::parse_placement(dst_text, "dst"), path + ".dst"));
  DTPLAN_TRY(const Json* scale, r.get(j, "avg_scale", path));
  DTPLAN_TRY(s.transform.avg_scale, r.integer(*scale, path + ".avg_scale"));
  DTPLAN_TRY(const Json* group, r.get(j, "group_size", path));
  DTPLAN_TRY(s.group_size, r.integer(*group, path + ".group_size"));
  DTPLAN_TRY(const Json* bytes, r.get(j, "bytes", path));
  DTPLAN_TRY(s.bytes, r.integer(*bytes, path + ".bytes"));
  DTPLAN_TRY(const Json* cost_us, r.get(j, "cost_us", path));
  DTPLAN_TRY(s.cost_us, r.number(*cost_us, path + ".cost_us"));
  if (s.bytes < 0) return r.error(path + ".bytes", "must be >= 0");
  if (!(s.cost_us >= 0)) return r.error(path + ".cost_us", "must be >= 0");
  DTPLAN_TRY(const Json* algo, r.get(j, "algorithm", path));
  DTPLAN_TRY(s.algorithm, by_name(r, *algo, path + ".algorithm", cost::Algorithm::kNone,
                                  cost::Algorithm::kNone, &cost::algorithm_name));
  DTPLAN_TRY(const Json* proto, r.get(j, "protocol", path));
  DTPLAN_TRY(s.protocol, by_name(r, *proto, path + ".protocol", cost::Protocol::kNone,
                                 cost::Protocol::kNone, &cost::protocol_name));
  DTPLAN_TRY(const Json* state, r.get(j, "state", path));
  DTPLAN_TRY(s.state, read_state(r, *state, path + ".state", ndim));
  return s;
}

core::Result<placement::TensorSpec> read_spec(const Reader& r, const Json& doc,
                                              const std::string& key,
                                              const std::vector<std::int64_t>& shape,
                                              core::DType dtype,
                                              const std::vector<std::int64_t>& mesh,
                                              const std::string& base) {
  const std::string path = join_path(base, key);
  DTPLAN_TRY(const Json* j, r.get(doc, key, base));
  DTPLAN_TRY(std::string text, r.string(*j, path));
  DTPLAN_TRY(placement::PlacementList list, r.at(placement::parse_placement_list(text, key), path));
  return r.at(placement::TensorSpec::make(shape, dtype, list, mesh), path);
}

}  // namespace

Json mesh_description_json(const MeshDescription& mesh) {
  Json j;
  j["shape"] = mesh.shape;
  j["names"] = mesh.names.empty() ? Json(nullptr) : Json(mesh.names);
  j["ranks"] = mesh.ranks.values();
  j["layouts"] = mesh.layouts;
  j["flattened"] = Json::array();
  for (const FlattenedMeshInfo& f : mesh.flattened) {
    j["flattened"].push_back({{"name", f.name}, {"mesh_dims", f.mesh_dims}, {"layout", f.layout}});
  }
  j["gpus_per_node"] = mesh.gpus_per_node;
  j["hardware"] = mesh.hardware;
  return j;
}

core::Result<MeshDescription> read_mesh_description(const core::JsonReader& r, const Json& j,
                                                    const std::string& base) {
  MeshDescription d;
  DTPLAN_TRY(const Json* shape, r.get(j, "shape", base));
  DTPLAN_TRY(d.shape, r.ints(*shape, join_path(base, "shape")));
  DTPLAN_TRY(const Json* names, r.get(j, "names", base));
  if (!names->is_null()) {
    DTPLAN_TRY(d.names, r.strings(*names, join_path(base, "names")));
  }
  DTPLAN_TRY(const Json* ranks, r.get(j, "ranks", base));
  DTPLAN_TRY(d.ranks, r.ints(*ranks, join_path(base, "ranks")));
  DTPLAN_TRY(const Json* layouts, r.get(j, "layouts", base));
  DTPLAN_TRY(d.layouts, r.strings(*layouts, join_path(base, "layouts")));
  DTPLAN_TRY(const Json* flats, r.get(j, "flattened", base));
  if (!flats->is_array()) return r.error(join_path(base, "flattened"), "expected a list");
  for (std::size_t i = 0; i < flats->size(); ++i) {
    const std::string path = index_path(join_path(base, "flattened"), i);
    FlattenedMeshInfo f;
    DTPLAN_TRY(const Json* name, r.get((*flats)[i], "name", path));
    DTPLAN_TRY(f.name, r.string(*name, path + ".name"));
    DTPLAN_TRY(const Json* dims, r.get((*flats)[i], "mesh_dims", path));
    DTPLAN_TRY(f.mesh_dims, read_dims(r, *dims, path + ".mesh_dims"));
    DTPLAN_TRY(const Json* layout, r.get((*flats)[i], "layout", path));
    DTPLAN_TRY(f.layout, r.string(*layout, path + ".layout"));
    d.flattened.push_back(std::move(f));
  }
  DTPLAN_TRY(const Json* gpn, r.get(j, "gpus_per_node", base));
  DTPLAN_TRY(d.gpus_per_node, r.integer(*gpn, join_path(base, "gpus_per_node")));
  DTPLAN_TRY(const Json* hw, r.get(j, "hardware", base));
  DTPLAN_TRY(d.hardware, r.string(*hw, join_path(base, "hardware")));
  return d;
}

Json warning_json(const Warning& w) {
  return {{"reason", warning_reason_name(w.reason)},
          {"mesh_dims", w.mesh_dims},
          {"message", w.message}};
}

core::Result<Warning> read_warning(const core::JsonReader& r, const Json& w,
                                   const std::string& path) {
  Warning out;
  DTPLAN_TRY(const Json* reason, r.get(w, "reason", path));
  DTPLAN_TRY(std::string reason_text, r.string(*reason, join_path(path, "reason")));
  DTPLAN_TRY(out.reason,
             r.at(parse_warning_reason(reason_text, "reason"), join_path(path, "reason")));
  DTPLAN_TRY(const Json* dims, r.get(w, "mesh_dims", path));
  DTPLAN_TRY(out.mesh_dims, read_dims(r, *dims, join_path(path, "mesh_dims")));
  DTPLAN_TRY(const Json* message, r.get(w, "message", path));
  DTPLAN_TRY(out.message, r.string(*message, join_path(path, "message")));
  return out;
}

void add_plan_body(const RedistPlan& plan, Json& doc) {
  doc["tensor"] = {{"shape", plan.src.shape()}, {"dtype", core::dtype_name(plan.src.dtype())}};
  doc["src"] = placement::format_placement_list(plan.src);
  doc["dst"] = placement::format_placement_list(plan.dst);
  doc["planner"] = planner_name(plan.planner);
  doc["requested_planner"] = planner_name(plan.requested);
  doc["model"] = plan.model;
  doc["merge"] = plan.merge;
  Json steps = Json::array();
  for (const PlanStep& s : plan.steps) {
    const Transform& t = s.transform;
    steps.push_back({{"collective", step_kind_name(t.kind)},
                     {"mesh_dims", t.mesh_dims},
                     {"flattened_mesh", t.flattened() ? Json(t.flattened_mesh) : Json(nullptr)},
                     {"group_size", s.group_size},
                     {"bytes", s.bytes},
                     {"cost_us", s.cost_us},
                     {"algorithm", nullable(algorithm_text(s.algorithm))},
                     {"protocol", nullable(protocol_text(s.protocol))},
                     {"src", placement::to_string(t.src)},
                     {"dst", placement::to_string(t.dst)},
                     {"avg_scale", t.avg_scale},
                     {"state", state_text(s.state)}});
  }
  doc["steps"] = steps;
  doc["comm_counts"] = {{"all_gather", plan.comm_counts.all_gather},
                        {"all_reduce", plan.comm_counts.all_reduce},
                        {"reduce_scatter", plan.comm_counts.reduce_scatter},
                        {"all_to_all", plan.comm_counts.all_to_all}};
  doc["total_cost_us"] = plan.total_cost_us;
  Json warnings = Json::array();
  for (const Warning& w : plan.warnings) warnings.push_back(warning_json(w));
  doc["warnings"] = warnings;
  doc["trace"] = plan.trace;
}

Json plan_json(const RedistPlan& plan) {
  Json doc;
  doc["mesh"] = mesh_description_json(plan.mesh);
  add_plan_body(plan, doc);
  return doc;
}

std::string plan_to_json(const RedistPlan& plan) { return plan_json(plan).dump(2) + "\n"; }

core::Result<RedistPlan> read_plan_body(const core::JsonReader& r, const Json& doc,
                                        const std::string& base, const MeshDescription& mesh,
                                        const MeshContext& ctx) {
  const auto path_of = [&](std::string_view key) { return join_path(base, key); };
  DTPLAN_TRY(const Json* tensor, r.get(doc, "tensor", base));
  DTPLAN_TRY(const Json* shape_json, r.get(*tensor, "shape", path_of("tensor")));
  DTPLAN_TRY(std::vector<std::int64_t> shape, r.ints(*shape_json, path_of("tensor.shape")));
  DTPLAN_TRY(const Json* dtype_json, r.get(*tensor, "dtype", path_of("tensor")));
  DTPLAN_TRY(std::string dtype_text, r.string(*dtype_json, path_of("tensor.dtype")));
  DTPLAN_TRY(core::DType dtype,
             r.at(core::parse_dtype(dtype_text, "dtype"), path_of("tensor.dtype")));
  if (auto s = check_tensor_shape(shape, dtype, mesh.shape, path_of("tensor.shape")); !s.ok()) {
    return s.error().with_context(r.source());
  }
  DTPLAN_TRY(placement::TensorSpec src, read_spec(r, doc, "src", shape, dtype, mesh.shape, base));
  DTPLAN_TRY(placement::TensorSpec dst, read_spec(r, doc, "dst", shape, dtype, mesh.shape, base));
  DTPLAN_TRY(const Json* planner, r.get(doc, "planner", base));
  DTPLAN_TRY(std::string planner_text, r.string(*planner, path_of("planner")));
  DTPLAN_TRY(PlannerKind ran, r.at(parse_planner(planner_text, "planner"), path_of("planner")));
  DTPLAN_TRY(const Json* requested, r.get(doc, "requested_planner", base));
  DTPLAN_TRY(std::string requested_text, r.string(*requested, path_of("requested_planner")));
  DTPLAN_TRY(PlannerKind asked, r.at(parse_planner(requested_text, "requested_planner"),
                                     path_of("requested_planner")));
  DTPLAN_TRY(const Json* model, r.get(doc, "model", base));
  DTPLAN_TRY(std::string model_text, r.string(*model, path_of("model")));
  DTPLAN_TRY(const Json* merge_json, r.get(doc, "merge", base));
  DTPLAN_TRY(bool merge, r.boolean(*merge_json, path_of("merge")));
  RedistState start = plan_endpoint(src, mesh.shape);
  RedistState target = plan_endpoint(dst, mesh.shape);
  RedistPlan plan{mesh,
                  std::move(src),
                  std::move(dst),
                  std::move(start),
                  std::move(target),
                  asked,
                  ran,
                  model_text,
                  merge,
                  {},
                  {},
                  0,
                  {},
                  {}};
  DTPLAN_TRY(const Json* steps, r.list(doc, "steps", base));
  for (std::size_t i = 0; i < steps->size(); ++i) {
    const std::string path = index_path(path_of("steps"), i);
    DTPLAN_TRY(PlanStep s, read_step(r, (*steps)[i], path, mesh.shape.size()));
    if (s.transform.flattened()) {
      std::uint32_t mask = 0;
      for (std::int32_t m : s.transform.mesh_dims) mask |= std::uint32_t{1} << m;
      if (!ctx.flattens(ctx.flattened_index(s.transform.flattened_mesh), mask)) {
        return r.error(path, "the mesh has no flattened mesh '" + s.transform.flattened_mesh +
                                 "' over its mesh dims");
      }
    }
    plan.steps.push_back(std::move(s));
  }
  DTPLAN_TRY(const Json* counts, r.get(doc, "comm_counts", base));
  for (auto [key, field] : {std::pair{"all_gather", &CommCounts::all_gather},
                            std::pair{"all_reduce", &CommCounts::all_reduce},
                            std::pair{"reduce_scatter", &CommCounts::reduce_scatter},
                            std::pair{"all_to_all", &CommCounts::all_to_all}}) {
    DTPLAN_TRY(const Json* c, r.get(*counts, key, path_of("comm_counts")));
    DTPLAN_TRY(std::int64_t v, r.integer(*c, join_path(path_of("comm_counts"), key)));
    if (v < 0 || v > std::numeric_limits<int>::max()) {
      return r.error(join_path(path_of("comm_counts"), key), "out of range");
    }
    plan.comm_counts.*field = static_cast<int>(v);
  }
  DTPLAN_TRY(const Json* total, r.get(doc, "total_cost_us", base));
  DTPLAN_TRY(plan.total_cost_us, r.number(*total, path_of("total_cost_us")));
  DTPLAN_TRY(const Json* warnings, r.list(doc, "warnings", base));
  for (std::size_t i = 0; i < warnings->size(); ++i) {
    DTPLAN_TRY(Warning w, read_warning(r, (*warnings)[i], index_path(path_of("warnings"), i)));
    plan.warnings.push_back(std::move(w));
  }
  DTPLAN_TRY(const Json* trace, r.get(doc, "trace", base));
  DTPLAN_TRY(plan.trace, r.string(*trace, path_of("trace")));
  if (auto s = check_plan(plan, base); !s.ok()) return s.error().with_context(r.source());
  if (auto s = check_read_plan(plan, ctx, base); !s.ok()) return s.error().with_context(r.source());
  return plan;
}

core::Result<RedistPlan> read_plan_json(std::string_view text, std::string_view source) {
  DTPLAN_TRY(const Json doc, core::parse_json(text, source));
  core::JsonReader r(source);
  DTPLAN_TRY(const Json* mesh_json, r.get(doc, "mesh", ""));
  DTPLAN_TRY(MeshDescription mesh, read_mesh_description(r, *mesh_json, "mesh"));
  DTPLAN_TRY(mesh::DeviceMesh built, r.at(build_described_mesh(mesh), "mesh"));
  DTPLAN_TRY(MeshContext ctx,
             r.at(MeshContext::make(built, mesh.gpus_per_node, mesh.hardware), "mesh"));
  if (auto s = check_mesh_description(mesh, ctx, "mesh"); !s.ok()) {
    return s.error().with_context(source);
  }
  return read_plan_body(r, doc, "", mesh, ctx);
}

core::Result<RedistPlan> load_plan_file(const std::string& path) {
  DTPLAN_TRY(std::string text, core::read_text_file(path, "plan file"));
  return read_plan_json(text, path);
}

}  // namespace dtplan::redist
