#include "mesh_arg.h"

#include "core/strings.h"
#include "core/text_file.h"

namespace dtplan::cli {

core::Result<mesh::FlattenSpec> parse_flatten_arg(const std::string& text) {
  std::string what = "--flatten " + text;
  std::size_t eq = text.find('=');
  mesh::FlattenSpec spec;
  DTPLAN_TRY(spec.dims, core::parse_name_list(text.substr(0, eq), what));
  if (eq != std::string::npos) {
    spec.name = std::string(core::trim(text.substr(eq + 1)));
    if (spec.name.empty()) return core::Error::bad_input(what + ": the name after '=' is empty");
  }
  return spec;
}

core::Status add_flatten_args(mesh::MeshConfig& config, const std::vector<std::string>& flags) {
  for (const std::string& f : flags) {
    DTPLAN_TRY(mesh::FlattenSpec spec, parse_flatten_arg(f));
    config.flatten.push_back(std::move(spec));
  }
  return {};
}

core::Result<mesh::MeshConfig> read_mesh_file(const std::string& path, const std::string& flag) {
  auto text = core::read_text_file(path, "mesh file");
  if (!text.ok()) return text.error().with_context(flag);
  return mesh::parse_mesh_config(*text, path);
}

core::Result<mesh::LoadedMesh> build_mesh_arg(const mesh::MeshConfig& config,
                                              const std::string& file,
                                              const std::vector<std::string>& flags,
                                              const std::string& shape_flag) {
  const std::size_t file_flattens = config.flatten.size() - flags.size();
  auto label = [&](std::string_view field, std::size_t i) -> std::string {
    if (field == "flatten" && i >= file_flattens) return "--flatten " + flags[i - file_flattens];
    if (!file.empty()) {
      std::string name(field);
      if (field == "flatten") name += "[" + std::to_string(i) + "]";
      return file + ": field '" + name + "'";
    }
    return field == "shape" ? shape_flag : "--" + std::string(field);
  };
  return mesh::build_mesh(config, label);
}

}  // namespace dtplan::cli
