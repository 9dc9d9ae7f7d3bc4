// dtplan mesh: a DeviceMesh's layout and every process group of every dim and flattened mesh, in
// the order every rank must create them; optionally a slice and an unflattened mesh.
//
//   dtplan mesh --shape 2,2,2 --names dp,cp,tp --flatten dp,tp [--slice dp,tp]
//               [--unflatten tp=2,1:a,b] [--ranks 0,1,...] [--json]
//   dtplan mesh --mesh configs/meshes/8x8.json

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "core/strings.h"
#include "core/text_table.h"
#include "layout/int_tensor.h"
#include "layout/layout_text.h"
#include "mesh/device_mesh.h"
#include "mesh/mesh_io.h"
#include "mesh/mesh_ops.h"
#include "mesh_arg.h"
#include "output.h"

namespace dtplan::cli {

namespace {

using mesh::DeviceMesh;

struct Options {
  std::string shape;
  std::string names;
  std::string ranks;
  std::string mesh_file;
  std::vector<std::string> flatten;
  std::string slice;
  std::string unflatten;
  bool json = false;
};

struct UnflattenSpec {
  std::string dim;  // a name, or an index when all digits
  std::vector<std::int64_t> sizes;
  std::vector<std::string> names;
};

// "DIM=SIZES:NAMES", e.g. "tp=2,2:a,b".
core::Result<UnflattenSpec> parse_unflatten(const std::string& text) {
  std::size_t eq = text.find('=');
  std::size_t colon = text.find(':', eq == std::string::npos ? 0 : eq);
  if (eq == std::string::npos || colon == std::string::npos) {
    return core::Error::bad_input("--unflatten: expected DIM=SIZES:NAMES, e.g. tp=2,2:a,b; got '" +
                                  text + "'");
  }
  UnflattenSpec spec;
  spec.dim = std::string(core::trim(text.substr(0, eq)));
  if (spec.dim.empty()) return core::Error::bad_input("--unflatten " + text + ": DIM is empty");
  DTPLAN_TRY(spec.sizes, core::parse_int_list(text.substr(eq + 1, colon - eq - 1), "--unflatten"));
  DTPLAN_TRY(spec.names, core::parse_name_list(text.substr(colon + 1), "--unflatten"));
  return spec;
}

core::Result<DeviceMesh> apply_unflatten(const DeviceMesh& root, const UnflattenSpec& spec) {
  bool index = spec.dim.find_first_not_of("0123456789") == std::string::npos;
  if (index) {
    DTPLAN_TRY(std::int64_t d, core::parse_int(spec.dim, "--unflatten DIM"));
    return mesh::unflatten(root, d, spec.sizes, spec.names);
  }
  return mesh::unflatten(root, spec.dim, spec.sizes, spec.names);
}

// The config from --mesh or from --shape/--names/--ranks, plus the --flatten flags.
core::Result<mesh::MeshConfig> read_config(const Options& o) {
  mesh::MeshConfig config;
  if (!o.mesh_file.empty()) {
    if (!o.shape.empty() || !o.names.empty() || !o.ranks.empty()) {
      return core::Error::bad_input("--mesh: cannot be combined with --shape, --names or --ranks");
    }
    DTPLAN_TRY(config, read_mesh_file(o.mesh_file, "--mesh"));
  } else {
    if (o.shape.empty()) {
      return core::Error::bad_input("--shape: required (e.g. --shape 2,2,2), or --mesh FILE");
    }
    DTPLAN_TRY(config.shape, core::parse_int_list(o.shape, "--shape"));
    if (!o.names.empty()) {
      DTPLAN_TRY(config.names, core::parse_name_list(o.names, "--names"));
    }
    if (!o.ranks.empty()) {
      DTPLAN_TRY(config.ranks, core::parse_int_list(o.ranks, "--ranks"));
    }
  }
  DTPLAN_CHECK(add_flatten_args(config, o.flatten));
  return config;
}

std::string groups_text(const layout::IntTensor& groups) {
  std::string out;
  for (std::int64_t r = 0; r < layout::rows(groups); ++r) {
    auto row = layout::row(groups, r);
    if (r > 0) out += ' ';
    out += core::format_int_list(row);
  }
  return out;
}

// One row per dim (and per flattened mesh): name, kind, size, layout, groups.
std::string table_text(const std::string& title, const DeviceMesh& m,
                       const std::vector<DeviceMesh>& flattened) {
  core::TextTable t({{"name", "", core::Align::kLeft},
                     {"kind", "", core::Align::kLeft},
                     {"size", "ranks"},
                     {"layout", "", core::Align::kLeft},
                     {"groups", "", core::Align::kLeft}},
                    title);
  for (int d = 0; d < m.ndim(); ++d) {
    mesh::MeshDim dim = mesh::mesh_dim(d);
    t.add_row({m.dim_name(dim), "dim", std::to_string(m.size(dim)),
               layout::to_string(m.dim_layout(dim)), groups_text(m.groups(dim))});
  }
  for (const DeviceMesh& f : flattened) {
    t.add_row({f.names()[0], "flattened", std::to_string(f.size()), layout::to_string(f.layout()),
               groups_text(f.groups(mesh::MeshDim{0}))});
  }
  return t.render();
}

// "mesh dp,tp: (2,4):(4,1), 8 ranks", or for a part of the rank map ", 2 copies in 8 ranks".
std::string mesh_title(const std::string& what, const DeviceMesh& m) {
  std::string out =
      what + ": " + layout::to_string(m.layout()) + ", " + std::to_string(m.size()) + " ranks";
  if (m.copies() > 1) {
    out += ", " + std::to_string(m.copies()) + " copies in " + std::to_string(m.rank_map().size()) +
           " ranks";
  }
  return out;
}

int run_mesh(const Options& o) {
  auto config = read_config(o);
  if (!config.ok()) return report("mesh", config.error());
  auto loaded = build_mesh_arg(*config, o.mesh_file, o.flatten);
  if (!loaded.ok()) return report("mesh", loaded.error());
  const DeviceMesh& root = loaded->root;

  std::optional<DeviceMesh> sliced;
  std::vector<std::string> slice_names;
  if (!o.slice.empty()) {
    auto names = core::parse_name_list(o.slice, "--slice");
    if (!names.ok()) return report("mesh", names.error());
    slice_names = *names;
    auto s = mesh::slice(root, slice_names);
    if (!s.ok()) return report("mesh", s.error().with_context("--slice " + o.slice));
    sliced = *s;
  }
  std::optional<DeviceMesh> unflattened;
  if (!o.unflatten.empty()) {
    auto spec = parse_unflatten(o.unflatten);
    if (!spec.ok()) return report("mesh", spec.error());
    auto u = apply_unflatten(root, *spec);
    if (!u.ok()) return report("mesh", u.error().with_context("--unflatten " + o.unflatten));
    unflattened = *u;
  }

  std::vector<DeviceMesh> flattened = mesh::flattened_meshes(root);
  if (o.json) {
    Json doc = mesh::mesh_json(root);
    if (config->ranks) doc["ranks"] = *config->ranks;
    doc["flattened"] = Json::array();
    for (const DeviceMesh& f : flattened) doc["flattened"].push_back(mesh::flattened_json(f));
    if (sliced) doc["slice"] = mesh::mesh_json(*sliced);
    if (unflattened) doc["unflattened"] = mesh::mesh_json(*unflattened);
    print_json(doc);
    return 0;
  }
  std::string what = "mesh" + (root.has_names() ? " " + core::join(root.names(), ",") : "");
  std::string text = table_text(mesh_title(what, root), root, flattened);
  if (config->ranks) text += "# ranks " + core::format_int_list(*config->ranks) + "\n";
  if (sliced) {
    text += "\n" + table_text(mesh_title("slice " + o.slice, *sliced), *sliced, {});
  }
  if (unflattened) {
    text +=
        "\n" + table_text(mesh_title("unflatten " + o.unflatten, *unflattened), *unflattened, {});
  }
  print_text(text);
  return 0;
}

}  // namespace

Action setup_mesh(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--shape", o->shape, "Mesh shape, e.g. 2,2,2");
  app.add_option("--names", o->names,
                 "Dim names, e.g. dp,cp,tp (without them dims show as dim_0, dim_1, ... and "
                 "cannot be sliced or flattened)");
  app.add_option("--ranks", o->ranks,
                 "The mesh tensor's ranks in row-major order, any values (default 0..N-1)");
  app.add_option("--mesh", o->mesh_file,
                 "A mesh file (configs/meshes/*.json) instead of --shape/--names/--ranks; "
                 "--flatten adds to its flatten list");
  app.add_option("--flatten", o->flatten,
                 "Flatten root dims (repeatable): DIMS or DIMS=NAME, e.g. dp,tp or dp,tp=dp_tp")
      ->allow_extra_args(false)  // one value per --flatten; a stray word is an error
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--slice", o->slice, "Slice the root by names, e.g. dp,tp (ascending order)");
  app.add_option("--unflatten", o->unflatten,
                 "Unflatten a root dim: DIM=SIZES:NAMES, e.g. tp=2,2:a,b (DIM: a name or index)");
  add_json_flag(app, o->json);
  return [o] { return run_mesh(*o); };
}

}  // namespace dtplan::cli
