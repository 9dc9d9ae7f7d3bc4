#include "redist/redist_plan_io.h"

#include <bit>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/strings.h"
#include "placement/placement_text.h"
#include "redist/mesh_context.h"

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

// Field access with errors "<source>: field '<path>': <what>".
class Reader {
 public:
  explicit Reader(std::string_view source) : source_(source) {}

  core::Error error(const std::string& path, const std::string& what) const {
    return core::Error::bad_input(std::string(source_) + ": field '" + path + "': " + what);
  }

  core::Result<const Json*> get(const Json& obj, const std::string& key,
                                const std::string& path) const {
    if (!obj.is_object()) return error(path, "expected an object");
    auto it = obj.find(key);
    if (it == obj.end()) return error(path.empty() ? key : path + "." + key, "missing");
    return &*it;
  }

  core::Result<std::int64_t> integer(const Json& j, const std::string& path) const {
    const bool fits = j.is_number_integer() &&
                      (!j.is_number_unsigned() ||
                       j.get<std::uint64_t>() <=
                           static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
    if (!fits) return error(path, "expected an integer, got " + brief(j));
    return j.get<std::int64_t>();
  }

  core::Result<double> number(const Json& j, const std::string& path) const {
    if (!j.is_number()) return error(path, "expected a number, got " + brief(j));
    return j.get<double>();
  }

  core::Result<std::string> string(const Json& j, const std::string& path) const {
    if (!j.is_string()) return error(path, "expected a string, got " + brief(j));
    return j.get<std::string>();
  }

  core::Result<bool> boolean(const Json& j, const std::string& path) const {
    if (!j.is_boolean()) return error(path, "expected true or false, got " + brief(j));
    return j.get<bool>();
  }

  core::Result<std::vector<std::int64_t>> ints(const Json& j, const std::string& path) const {
    if (!j.is_array()) return error(path, "expected a list of integers, got " + brief(j));
    std::vector<std::int64_t> out;
    for (std::size_t i = 0; i < j.size(); ++i) {
      DTPLAN_TRY(std::int64_t v, integer(j[i], path + "[" + std::to_string(i) + "]"));
      out.push_back(v);
    }
    return out;
  }

  core::Result<std::vector<std::string>> strings(const Json& j, const std::string& path) const {
    if (!j.is_array()) return error(path, "expected a list of strings, got " + brief(j));
    std::vector<std::string> out;
    for (std::size_t i = 0; i < j.size(); ++i) {
      DTPLAN_TRY(std::string v, string(j[i], path + "[" + std::to_string(i) + "]"));
      out.push_back(std::move(v));
    }
    return out;
  }

  // Wraps an error of a parser with the field path.
  template <class T>
  core::Result<T> at(core::Result<T> r, const std::string& path) const {
    if (r.ok()) return r;
    return error(path, std::move(r).error().message);
  }

 private:
  static std::string brief(const Json& j) {
    std::string text = j.dump();
    return text.size() <= 60 ? text : text.substr(0, 57) + "...";
  }
  std::string_view source_;
};

std::vector<std::int32_t> to_dims(const std::vector<std::int64_t>& v) {
  return {v.begin(), v.end()};
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

core::Result<MeshDescription> read_mesh(const Reader& r, const Json& j) {
  MeshDescription d;
  DTPLAN_TRY(const Json* shape, r.get(j, "shape", "mesh"));
  DTPLAN_TRY(d.shape, r.ints(*shape, "mesh.shape"));
  DTPLAN_TRY(const Json* names, r.get(j, "names", "mesh"));
  if (!names->is_null()) {
    DTPLAN_TRY(d.names, r.strings(*names, "mesh.names"));
  }
  DTPLAN_TRY(const Json* ranks, r.get(j, "ranks", "mesh"));
  DTPLAN_TRY(d.ranks, r.ints(*ranks, "mesh.ranks"));
  DTPLAN_TRY(const Json* layouts, r.get(j, "layouts", "mesh"));
  DTPLAN_TRY(d.layouts, r.strings(*layouts, "mesh.layouts"));
  DTPLAN_TRY(const Json* flats, r.get(j, "flattened", "mesh"));
  if (!flats->is_array()) return r.error("mesh.flattened", "expected a list");
  for (std::size_t i = 0; i < flats->size(); ++i) {
    const std::string path = "mesh.flattened[" + std::to_string(i) + "]";
    FlattenedMeshInfo f;
    DTPLAN_TRY(const Json* name, r.get((*flats)[i], "name", path));
    DTPLAN_TRY(f.name, r.string(*name, path + ".name"));
    DTPLAN_TRY(const Json* dims, r.get((*flats)[i], "mesh_dims", path));
    DTPLAN_TRY(std::vector<std::int64_t> dim_list, r.ints(*dims, path + ".mesh_dims"));
    f.mesh_dims = to_dims(dim_list);
    DTPLAN_TRY(const Json* layout, r.get((*flats)[i], "layout", path));
    DTPLAN_TRY(f.layout, r.string(*layout, path + ".layout"));
    d.flattened.push_back(std::move(f));
  }
  DTPLAN_TRY(const Json* gpn, r.get(j, "gpus_per_node", "mesh"));
  DTPLAN_TRY(d.gpus_per_node, r.integer(*gpn, "mesh.gpus_per_node"));
  DTPLAN_TRY(const Json* hw, r.get(j, "hardware", "mesh"));
  DTPLAN_TRY(d.hardware, r.string(*hw, "mesh.hardware"));
  return d;
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
  DTPLAN_TRY(std::vector<std::int64_t> dim_list, r.ints(*dims, path + ".mesh_dims"));
  for (std::int64_t d : dim_list) {
    if (d < 0 || static_cast<std::size_t>(d) >= ndim) {
      return r.error(path + ".mesh_dims", "mesh dim " + std::to_string(d) + " does not exist");
    }
  }
  s.transform.mesh_dims = to_dims(dim_list);
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
  if (s.bytes < 0 || !(s.cost_us >= 0)) return r.error(path, "bytes and cost_us must be >= 0");
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
                                              const std::vector<std::int64_t>& mesh) {
  DTPLAN_TRY(const Json* j, r.get(doc, key, ""));
  DTPLAN_TRY(std::string text, r.string(*j, key));
  DTPLAN_TRY(placement::PlacementList list, r.at(placement::parse_placement_list(text, key), key));
  return r.at(placement::TensorSpec::make(shape, dtype, list, mesh), key);
}

}  // namespace

std::string plan_to_json(const RedistPlan& plan) { return plan_json(plan).dump(2) + "\n"; }

Json plan_json(const RedistPlan& plan) {
  Json mesh;
  mesh["shape"] = plan.mesh.shape;
  mesh["names"] = plan.mesh.names.empty() ? Json(nullptr) : Json(plan.mesh.names);
  mesh["ranks"] = plan.mesh.ranks;
  mesh["layouts"] = plan.mesh.layouts;
  mesh["flattened"] = Json::array();
  for (const FlattenedMeshInfo& f : plan.mesh.flattened) {
    mesh["flattened"].push_back(
        {{"name", f.name}, {"mesh_dims", f.mesh_dims}, {"layout", f.layout}});
  }
  mesh["gpus_per_node"] = plan.mesh.gpus_per_node;
  mesh["hardware"] = plan.mesh.hardware;
  Json doc;
  doc["mesh"] = mesh;
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
  for (const Warning& w : plan.warnings) {
    warnings.push_back({{"reason", warning_reason_name(w.reason)},
                        {"mesh_dims", w.mesh_dims},
                        {"message", w.message}});
  }
  doc["warnings"] = warnings;
  doc["trace"] = plan.trace;
  return doc;
}

core::Result<RedistPlan> read_plan_json(std::string_view text, std::string_view source) {
  Json doc = Json::parse(text, nullptr, false);
  if (doc.is_discarded()) {
    return core::Error::bad_input(std::string(source) + ": not valid JSON");
  }
  Reader r(source);
  DTPLAN_TRY(const Json* mesh_json, r.get(doc, "mesh", ""));
  DTPLAN_TRY(MeshDescription mesh, read_mesh(r, *mesh_json));
  DTPLAN_TRY(mesh::DeviceMesh built, r.at(build_described_mesh(mesh), "mesh"));
  DTPLAN_TRY(MeshContext ctx,
             r.at(MeshContext::make(built, mesh.gpus_per_node, mesh.hardware), "mesh"));
  DTPLAN_TRY(const Json* tensor, r.get(doc, "tensor", ""));
  DTPLAN_TRY(const Json* shape_json, r.get(*tensor, "shape", "tensor"));
  DTPLAN_TRY(std::vector<std::int64_t> shape, r.ints(*shape_json, "tensor.shape"));
  DTPLAN_TRY(const Json* dtype_json, r.get(*tensor, "dtype", "tensor"));
  DTPLAN_TRY(std::string dtype_text, r.string(*dtype_json, "tensor.dtype"));
  DTPLAN_TRY(core::DType dtype, r.at(core::parse_dtype(dtype_text, "dtype"), "tensor.dtype"));
  DTPLAN_TRY(placement::TensorSpec src, read_spec(r, doc, "src", shape, dtype, mesh.shape));
  DTPLAN_TRY(placement::TensorSpec dst, read_spec(r, doc, "dst", shape, dtype, mesh.shape));
  DTPLAN_TRY(const Json* planner, r.get(doc, "planner", ""));
  DTPLAN_TRY(std::string planner_text, r.string(*planner, "planner"));
  DTPLAN_TRY(PlannerKind ran, r.at(parse_planner(planner_text, "planner"), "planner"));
  DTPLAN_TRY(const Json* requested, r.get(doc, "requested_planner", ""));
  DTPLAN_TRY(std::string requested_text, r.string(*requested, "requested_planner"));
  DTPLAN_TRY(PlannerKind asked,
             r.at(parse_planner(requested_text, "requested_planner"), "requested_planner"));
  DTPLAN_TRY(const Json* model, r.get(doc, "model", ""));
  DTPLAN_TRY(std::string model_text, r.string(*model, "model"));
  DTPLAN_TRY(const Json* merge_json, r.get(doc, "merge", ""));
  DTPLAN_TRY(bool merge, r.boolean(*merge_json, "merge"));
  RedistPlan plan{mesh,
                  src,
                  dst,
                  plan_endpoint(src, mesh.shape),
                  plan_endpoint(dst, mesh.shape),
                  asked,
                  ran,
                  model_text,
                  merge,
                  {},
                  {},
                  0,
                  {},
                  {}};
  DTPLAN_TRY(const Json* steps, r.get(doc, "steps", ""));
  if (!steps->is_array()) return r.error("steps", "expected a list");
  for (std::size_t i = 0; i < steps->size(); ++i) {
    const std::string path = "steps[" + std::to_string(i) + "]";
    DTPLAN_TRY(PlanStep s, read_step(r, (*steps)[i], path, mesh.shape.size()));
    if (s.transform.flattened()) {
      std::uint32_t mask = 0;
      for (std::int32_t m : s.transform.mesh_dims) mask |= std::uint32_t{1} << m;
      if (!ctx.flattens(ctx.flattened_index(s.transform.flattened_mesh), mask)) {
        return r.error(path + ".flattened_mesh", "the mesh has no flattened mesh '" +
                                                     s.transform.flattened_mesh +
                                                     "' over these mesh dims");
      }
    }
    plan.steps.push_back(std::move(s));
  }
  DTPLAN_TRY(const Json* counts, r.get(doc, "comm_counts", ""));
  for (auto [key, field] : {std::pair{"all_gather", &CommCounts::all_gather},
                            std::pair{"all_reduce", &CommCounts::all_reduce},
                            std::pair{"reduce_scatter", &CommCounts::reduce_scatter},
                            std::pair{"all_to_all", &CommCounts::all_to_all}}) {
    DTPLAN_TRY(const Json* c, r.get(*counts, key, "comm_counts"));
    DTPLAN_TRY(std::int64_t v, r.integer(*c, std::string("comm_counts.") + key));
    plan.comm_counts.*field = static_cast<int>(v);
  }
  DTPLAN_TRY(const Json* total, r.get(doc, "total_cost_us", ""));
  DTPLAN_TRY(plan.total_cost_us, r.number(*total, "total_cost_us"));
  DTPLAN_TRY(const Json* warnings, r.get(doc, "warnings", ""));
  if (!warnings->is_array()) return r.error("warnings", "expected a list");
  for (std::size_t i = 0; i < warnings->size(); ++i) {
    const std::string path = "warnings[" + std::to_string(i) + "]";
    const Json& w = (*warnings)[i];
    Warning out;
    DTPLAN_TRY(const Json* reason, r.get(w, "reason", path));
    DTPLAN_TRY(std::string reason_text, r.string(*reason, path + ".reason"));
    DTPLAN_TRY(out.reason, r.at(parse_warning_reason(reason_text, "reason"), path + ".reason"));
    DTPLAN_TRY(const Json* dims, r.get(w, "mesh_dims", path));
    DTPLAN_TRY(std::vector<std::int64_t> dim_list, r.ints(*dims, path + ".mesh_dims"));
    out.mesh_dims = to_dims(dim_list);
    DTPLAN_TRY(const Json* message, r.get(w, "message", path));
    DTPLAN_TRY(out.message, r.string(*message, path + ".message"));
    plan.warnings.push_back(std::move(out));
  }
  DTPLAN_TRY(const Json* trace, r.get(doc, "trace", ""));
  DTPLAN_TRY(plan.trace, r.string(*trace, "trace"));
  if (auto s = check_plan(plan); !s.ok()) return s.error().with_context(source);
  return plan;
}

core::Result<RedistPlan> load_plan_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return core::Error::bad_input("cannot read the plan file " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return read_plan_json(text.str(), path);
}

}  // namespace dtplan::redist
