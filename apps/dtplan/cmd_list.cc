// dtplan list models|meshes|hardware: the configurations that ship with dtplan (and any in
// $DTPLAN_CONFIG_DIR), one line each: the name `--model`, `--mesh` and `--hardware` take, and
// its description.
//
//   dtplan list models
//   llama3-405b  LLaMA3-405B (docs/reference/torchtitan.md §8), batch 16, seq 8192
//   ...
//   dtplan list meshes --json   // [{"name": "2x2", "description": "dp=2, tp=2, ..."}, ...]

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "command.h"
#include "config_args.h"
#include "core/error.h"
#include "output.h"

namespace dtplan::cli {
namespace {

struct Options {
  std::string what;
  bool json = false;
};

core::Result<ConfigKind> kind_of(const std::string& what) {
  for (ConfigKind k : {ConfigKind::kModel, ConfigKind::kMesh, ConfigKind::kHardware}) {
    if (what == config_folder(k)) return k;
  }
  return core::Error::bad_input("'" + what + "': not one of models, meshes, hardware");
}

}  // namespace

Action setup_list(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("what", o->what, "models, meshes or hardware")->required();
  add_json_flag(app, o->json);
  return [o] {
    auto kind = kind_of(o->what);
    if (!kind.ok()) return report("list", kind.error());
    const std::vector<ConfigEntry> entries = list_configs(*kind);
    if (o->json) {
      Json doc = Json::array();
      for (const ConfigEntry& e : entries) {
        doc.push_back({{"name", e.name}, {"description", e.description}});
      }
      print_json(doc);
      return 0;
    }
    std::size_t width = 0;
    for (const ConfigEntry& e : entries) width = std::max(width, e.name.size());
    std::string out;
    for (const ConfigEntry& e : entries) {
      out += e.name + std::string(width - e.name.size() + 2, ' ') + e.description + "\n";
    }
    if (entries.empty()) {
      out = "# no configs/" + std::string(config_folder(*kind)) +
            " folder found; set DTPLAN_CONFIG_DIR\n";
    }
    print_text(out);
    return 0;
  };
}

}  // namespace dtplan::cli
