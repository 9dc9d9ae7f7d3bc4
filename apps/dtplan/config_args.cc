#include "config_args.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <system_error>

#include "core/json_io.h"
#include "core/strings.h"
#include "core/text_file.h"
#include "cost/hardware_io.h"
#include "mesh_arg.h"

namespace dtplan::cli {
namespace {

namespace fs = std::filesystem;

std::string_view kind_word(ConfigKind kind) {
  switch (kind) {
    case ConfigKind::kModel:
      return "model";
    case ConfigKind::kMesh:
      return "mesh";
    case ConfigKind::kHardware:
      break;
  }
  return "hardware profile";
}

bool is_path(std::string_view value) {
  return value.find('/') != std::string_view::npos || value.ends_with(".json");
}

bool is_inline_mesh(const std::string& value) {
  return !is_path(value) && value.find('=') != std::string::npos;
}

// Every NAME.json of `kind`'s folder, by name: the first root that has it wins.
std::map<std::string, fs::path> shipped(ConfigKind kind) {
  std::map<std::string, fs::path> out;
  for (const fs::path& root : shipped_config_search().roots) {
    std::error_code ec;
    for (fs::directory_iterator it(root / config_folder(kind), ec), end; !ec && it != end;
         it.increment(ec)) {
      if (it->path().extension() == ".json") out.emplace(it->path().stem().string(), it->path());
    }
  }
  return out;
}

// "dp=8,tp=8" as a mesh config.
core::Result<mesh::MeshConfig> inline_mesh(const std::string& value, const std::string& flag) {
  const std::string what = flag + " " + value;
  mesh::MeshConfig config;
  for (const std::string_view part : core::split(value, ',')) {
    const std::size_t eq = part.find('=');
    if (eq == std::string::npos) {
      return core::Error::bad_input(what + ": '" + std::string(part) + "' is not NAME=SIZE");
    }
    const std::string name(core::trim(part.substr(0, eq)));
    if (name.empty()) return core::Error::bad_input(what + ": a dim has no name before '='");
    DTPLAN_TRY(std::int64_t size, core::parse_int(part.substr(eq + 1), what));
    if (std::find(config.names.begin(), config.names.end(), name) != config.names.end()) {
      return core::Error::bad_input(what + ": the dim name '" + name + "' repeats");
    }
    config.names.push_back(name);
    config.shape.push_back(size);
  }
  return config;
}

// "dp_shard=8, tp=8, flattened dp_shard+tp, on h100-dgx".
std::string mesh_summary(const mesh::MeshConfig& config) {
  std::string out;
  for (std::size_t d = 0; d < config.shape.size(); ++d) {
    out += (d == 0 ? "" : ", ") +
           (d < config.names.size() ? config.names[d] : "dim" + std::to_string(d)) + "=" +
           std::to_string(config.shape[d]);
  }
  for (const mesh::FlattenSpec& f : config.flatten) out += ", flattened " + core::join(f.dims, "+");
  if (!config.hardware.empty()) out += ", on " + config.hardware;
  return out;
}

}  // namespace

cost::ConfigSearch shipped_config_search() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) exe.clear();
  return cost::config_search(exe);
}

std::string_view config_folder(ConfigKind kind) {
  switch (kind) {
    case ConfigKind::kModel:
      return "models";
    case ConfigKind::kMesh:
      return "meshes";
    case ConfigKind::kHardware:
      break;
  }
  return "hardware";
}

core::Result<std::string> config_file_arg(ConfigKind kind, std::string_view value,
                                          std::string_view flag) {
  const std::string arg(core::trim(value));
  if (is_path(arg)) return arg;
  const std::map<std::string, fs::path> files = shipped(kind);
  if (auto it = files.find(arg); it != files.end()) return it->second.string();
  std::vector<std::string> known;
  for (const auto& [name, path] : files) known.push_back(name);
  std::string message =
      std::string(flag) + ": no " + std::string(kind_word(kind)) + " '" + arg + "'";
  if (auto near = core::closest_name(arg, known)) message += "; did you mean '" + *near + "'?";
  if (known.empty()) {
    message += " (no configs/" + std::string(config_folder(kind)) +
               " folder found; set DTPLAN_CONFIG_DIR or pass a file)";
  } else {
    message += " (known: " + core::join(known, ", ") + ")";
  }
  return core::Error::bad_input(std::move(message));
}

core::Result<mesh::MeshConfig> read_mesh_arg(const std::string& value, const std::string& flag) {
  if (is_inline_mesh(value)) return inline_mesh(value, flag);
  DTPLAN_TRY(std::string file, config_file_arg(ConfigKind::kMesh, value, flag));
  return read_mesh_file(file, flag);
}

std::string mesh_file_label(const std::string& value) {
  if (is_inline_mesh(value)) return "";
  auto file = config_file_arg(ConfigKind::kMesh, value, "--mesh");
  return file.ok() ? *file : value;
}

std::vector<ConfigEntry> list_configs(ConfigKind kind) {
  std::vector<ConfigEntry> out;
  for (const auto& [name, path] : shipped(kind)) {
    ConfigEntry e{name, ""};
    auto text = core::read_text_file(path.string(), "config file");
    auto parsed = text.ok() ? core::parse_json(*text, path.string())
                            : core::Result<nlohmann::ordered_json>(text.error());
    const nlohmann::ordered_json doc = parsed.ok() ? *parsed : nlohmann::ordered_json();
    if (!doc.is_object()) {
      e.description = "(does not parse: " + path.string() + ")";
    } else if (doc.contains("description") && doc["description"].is_string()) {
      e.description = doc["description"].get<std::string>();
    } else if (doc.contains("comment") && doc["comment"].is_string()) {
      e.description = doc["comment"].get<std::string>();
    } else if (kind == ConfigKind::kMesh) {
      auto config = mesh::parse_mesh_config(*text, path.string());
      e.description = config.ok() ? mesh_summary(*config) : config.error().message;
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace dtplan::cli
