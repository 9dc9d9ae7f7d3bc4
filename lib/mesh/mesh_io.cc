#include "mesh/mesh_io.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/json_io.h"
#include "core/strings.h"
#include "core/text_file.h"
#include "layout/layout_text.h"
#include "mesh/mesh_ops.h"

namespace dtplan::mesh {

namespace {

using Json = nlohmann::ordered_json;

const std::vector<std::string> kMeshFields = {"shape", "names", "flatten", "hardware", "ranks"};
const std::vector<std::string> kFlattenFields = {"dims", "name"};

// The JSON text of a value, cut to 60 characters for error messages.
std::string brief(const Json& j) {
  std::string text = j.dump();
  return text.size() <= 60 ? text : text.substr(0, 57) + "...";
}

// Errors of one file: "<source>: field '<field>': <what>".
struct FileErrors {
  std::string_view source;
  core::Error field(std::string_view name, const std::string& what) const {
    return core::Error::bad_input(std::string(source) + ": field '" + std::string(name) +
                                  "': " + what);
  }
  core::Error unknown(const std::string& key, const std::vector<std::string>& fields,
                      const std::string& where) const {
    std::string msg = std::string(source) + ": unknown field '" + key + "'" + where;
    if (auto near = core::closest_name(key, fields)) msg += "; did you mean '" + *near + "'?";
    return core::Error::bad_input(msg + " (fields: " + core::join(fields, ", ") + ")");
  }
};

enum class Empty : bool { kRejected, kAllowed };

core::Result<std::vector<std::int64_t>> int_list(const Json& j, const FileErrors& e,
                                                 std::string_view field, Empty empty) {
  bool allow_empty = empty == Empty::kAllowed;
  std::string want = std::string("expected a ") + (allow_empty ? "" : "non-empty ") +
                     "list of integers, got " + brief(j);
  if (!j.is_array() || (!allow_empty && j.empty())) return e.field(field, want);
  std::vector<std::int64_t> out;
  for (const Json& v : j) {
    bool fits = v.is_number_integer() &&
                (!v.is_number_unsigned() ||
                 v.get<std::uint64_t>() <=
                     static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
    if (!fits) return e.field(field, want);
    out.push_back(v.get<std::int64_t>());
  }
  return out;
}

core::Result<std::vector<std::string>> name_list(const Json& j, const FileErrors& e,
                                                 std::string_view field) {
  std::string want = "expected a list of non-empty names, got " + brief(j);
  if (!j.is_array()) return e.field(field, want);
  std::vector<std::string> out;
  for (const Json& v : j) {
    if (!v.is_string() || v.get<std::string>().empty()) return e.field(field, want);
    out.push_back(v.get<std::string>());
  }
  return out;
}

core::Result<FlattenSpec> flatten_entry(const Json& j, const FileErrors& e, std::size_t i) {
  std::string field = "flatten[" + std::to_string(i) + "]";
  FlattenSpec spec;
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      if (key != "dims" && key != "name") return e.unknown(key, kFlattenFields, " in " + field);
    }
    if (!j.contains("dims")) return e.field(field, "missing 'dims'");
    DTPLAN_TRY(spec.dims, name_list(j.at("dims"), e, field + ".dims"));
    if (j.contains("name")) {
      if (!j.at("name").is_string() || j.at("name").get<std::string>().empty()) {
        return e.field(field + ".name", "expected a non-empty string, got " + brief(j.at("name")));
      }
      spec.name = j.at("name").get<std::string>();
    }
  } else {
    DTPLAN_TRY(spec.dims, name_list(j, e, field));
  }
  if (spec.dims.empty()) return e.field(field, "expected at least one dim name");
  return spec;
}

nlohmann::ordered_json groups_json(const DeviceMesh& mesh, MeshDim d) {
  layout::IntTensor g = mesh.groups(d);
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (std::int64_t r = 0; r < layout::rows(g); ++r) {
    auto row = layout::row(g, r);
    rows.push_back(std::vector<std::int64_t>(row.begin(), row.end()));
  }
  return rows;
}

}  // namespace

core::Result<MeshConfig> parse_mesh_config(std::string_view json_text, std::string_view source) {
  FileErrors e{source};
  DTPLAN_TRY(const Json j, core::parse_json(json_text, source));
  if (!j.is_object()) {
    return core::Error::bad_input(std::string(source) + ": expected a JSON object, got " +
                                  std::string(j.type_name()));
  }
  for (const auto& [key, value] : j.items()) {
    if (std::find(kMeshFields.begin(), kMeshFields.end(), key) == kMeshFields.end()) {
      return e.unknown(key, kMeshFields, "");
    }
  }
  MeshConfig config;
  if (!j.contains("shape")) return e.field("shape", "missing (e.g. \"shape\": [8, 8])");
  DTPLAN_TRY(config.shape, int_list(j.at("shape"), e, "shape", Empty::kRejected));
  if (j.contains("names")) {
    DTPLAN_TRY(config.names, name_list(j.at("names"), e, "names"));
  }
  if (j.contains("flatten")) {
    const Json& f = j.at("flatten");
    if (!f.is_array()) return e.field("flatten", "expected a list, got " + brief(f));
    for (std::size_t i = 0; i < f.size(); ++i) {
      DTPLAN_TRY(FlattenSpec spec, flatten_entry(f[i], e, i));
      config.flatten.push_back(std::move(spec));
    }
  }
  if (j.contains("hardware")) {
    if (!j.at("hardware").is_string()) {
      return e.field("hardware", "expected a string, got " + brief(j.at("hardware")));
    }
    config.hardware = j.at("hardware").get<std::string>();
  }
  if (j.contains("ranks")) {
    DTPLAN_TRY(config.ranks, int_list(j.at("ranks"), e, "ranks", Empty::kAllowed));
  }
  return config;
}

core::Result<LoadedMesh> build_mesh(const MeshConfig& config, const InputLabel& label) {
  auto root = config.ranks ? DeviceMesh::from_ranks(config.shape, *config.ranks, config.names)
                           : DeviceMesh::create(config.shape, config.names);
  if (!root.ok()) {
    // Name the field at fault: the shape alone, else the ranks without names, else the names.
    std::string field = "names";
    if (!DeviceMesh::create(config.shape, {}).ok()) {
      field = "shape";
    } else if (config.ranks && !DeviceMesh::from_ranks(config.shape, *config.ranks, {}).ok()) {
      field = "ranks";
    }
    return root.error().with_context(label(field, 0));
  }
  LoadedMesh out{config, *root, {}};
  for (std::size_t i = 0; i < config.flatten.size(); ++i) {
    const FlattenSpec& spec = config.flatten[i];
    // Without names the flatten itself is what fails; say so rather than the slice's message.
    auto sub = root->has_names() ? slice(*root, spec.dims) : *root;
    auto flat = sub.ok() ? flatten(*sub, spec.name.empty() ? std::nullopt
                                                           : std::optional<std::string>(spec.name))
                         : sub;
    if (!flat.ok()) return flat.error().with_context(label("flatten", i));
    out.flattened.push_back(*flat);
  }
  return out;
}

core::Result<LoadedMesh> build_mesh(const MeshConfig& config, std::string_view source) {
  return build_mesh(config, [&](std::string_view field, std::size_t i) {
    std::string name(field);
    if (field == "flatten") name += "[" + std::to_string(i) + "]";
    return std::string(source) + ": field '" + name + "'";
  });
}

core::Result<LoadedMesh> load_mesh_file(const std::string& path) {
  DTPLAN_TRY(std::string text, core::read_text_file(path, "mesh file"));
  DTPLAN_TRY(MeshConfig config, parse_mesh_config(text, path));
  return build_mesh(config, path);
}

nlohmann::ordered_json dim_json(const DeviceMesh& mesh, MeshDim d) {
  nlohmann::ordered_json j;
  j["name"] = mesh.dim_name(d);
  j["size"] = mesh.size(d);
  j["layout"] = layout::to_string(mesh.dim_layout(d));
  j["groups"] = groups_json(mesh, d);
  return j;
}

nlohmann::ordered_json mesh_json(const DeviceMesh& mesh) {
  nlohmann::ordered_json j;
  j["shape"] = mesh.shape();
  j["names"] = mesh.has_names() ? nlohmann::ordered_json(mesh.names()) : nullptr;
  j["layout"] = layout::to_string(mesh.layout());
  j["dims"] = nlohmann::ordered_json::array();
  for (int d = 0; d < mesh.ndim(); ++d) j["dims"].push_back(dim_json(mesh, mesh_dim(d)));
  return j;
}

nlohmann::ordered_json flattened_json(const DeviceMesh& flattened) {
  nlohmann::ordered_json j = dim_json(flattened, MeshDim{0});
  j["layout"] = layout::to_string(flattened.layout());
  return j;
}

}  // namespace dtplan::mesh
