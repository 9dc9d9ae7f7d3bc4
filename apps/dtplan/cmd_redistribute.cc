// dtplan redistribute: the plan that turns one DTensor placement into another on a device mesh,
// step by step, priced, with DTensor's flattened-mesh merges and warnings.
//
//   dtplan redistribute --mesh 2,2,2 --names A,B,C [--flatten A,C]... --shape 16,16,16
//                       [--dtype bf16] --from "P(sum),R,P(sum)" --to "R,R,R"
//                       [--planner greedy|min-cost|auto] [--no-merge] [--hardware NAME|FILE]
//                       [--gpus-per-node N] [--model nccl|dtensor]
//                       [--verify [--values float|int] [--seed N]] [--json]
//   dtplan redistribute --mesh configs/meshes/2x2x2.json --shape 16 --from S(0),S(0),R --to R,R,R

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "core/checked.h"
#include "core/dtype.h"
#include "core/limits.h"
#include "core/strings.h"
#include "core/text_table.h"
#include "core/units.h"
#include "cost/hardware.h"
#include "hardware_arg.h"
#include "layout/layout_text.h"
#include "mesh_arg.h"
#include "output.h"
#include "placement/placement_text.h"
#include "plan_text.h"
#include "redist/planner.h"
#include "redist/redist_plan_io.h"
#include "report/nccl_format.h"
#include "sim/step_report_io.h"
#include "sim/verify.h"
#include "verify_arg.h"

namespace dtplan::cli {

namespace {

struct Options {
  std::string mesh;
  std::string names;
  std::vector<std::string> flatten;
  std::string shape;
  std::string dtype = "f32";
  std::string from;
  std::string to;
  std::string planner = "auto";
  bool no_merge = false;
  std::string hardware;
  std::string gpus_per_node;
  std::string model = "nccl";
  bool verify = false;
  VerifyArgs verify_args;
  bool json = false;
};

struct Request {
  std::unique_ptr<redist::Planner> planner;
  placement::TensorSpec src;
  placement::TensorSpec dst;
  redist::PlanOptions options;
  cost::HardwareProfile profile;
};

bool is_file(const std::string& value) {
  return value.find('/') != std::string::npos ||
         (value.size() > 5 && value.substr(value.size() - 5) == ".json");
}

core::Result<mesh::MeshConfig> read_config(const Options& o) {
  mesh::MeshConfig config;
  if (o.mesh.empty()) {
    return core::Error::bad_input("--mesh: required (a shape such as 2,2,2, or a mesh file)");
  }
  if (is_file(o.mesh)) {
    if (!o.names.empty()) {
      return core::Error::bad_input("--names: cannot be combined with a mesh file (" + o.mesh +
                                    " names its dims)");
    }
    DTPLAN_TRY(config, read_mesh_file(o.mesh, "--mesh"));
  } else {
    DTPLAN_TRY(config.shape, core::parse_int_list(o.mesh, "--mesh"));
    if (!o.names.empty()) {
      DTPLAN_TRY(config.names, core::parse_name_list(o.names, "--names"));
    }
  }
  DTPLAN_CHECK(add_flatten_args(config, o.flatten));
  return config;
}

core::Result<placement::TensorSpec> read_spec(const std::string& text, const std::string& flag,
                                              const std::vector<std::int64_t>& shape,
                                              core::DType dtype,
                                              const std::vector<std::int64_t>& mesh) {
  if (text.empty()) return core::Error::bad_input(flag + ": required, e.g. " + flag + " S(0),R");
  DTPLAN_TRY(placement::PlacementList list, placement::parse_placement_list(text, flag));
  if (list.placements.size() != mesh.size()) {
    return core::Error::bad_input(
        flag + ": '" + text + "' has " + std::to_string(list.placements.size()) +
        " placements for a mesh of " + std::to_string(mesh.size()) + " dims");
  }
  auto spec = placement::TensorSpec::make(shape, dtype, list, mesh);
  if (!spec.ok()) return spec.error().with_context(flag);
  return spec;
}

core::Result<Request> read_request(const Options& o) {
  DTPLAN_TRY(mesh::MeshConfig config, read_config(o));
  DTPLAN_TRY(mesh::LoadedMesh loaded,
             build_mesh_arg(config, is_file(o.mesh) ? o.mesh : std::string(), o.flatten, "--mesh"));
  DTPLAN_TRY(cost::HardwareProfile profile, load_hardware_or_default(o.hardware, config.hardware));
  DTPLAN_TRY(std::int64_t gpus, gpus_per_node_arg(o.gpus_per_node, profile));
  DTPLAN_TRY(redist::CostModelKind model, redist::parse_cost_model(o.model, "--model"));
  DTPLAN_TRY(redist::PlannerKind planner, redist::parse_planner(o.planner, "--planner"));
  if (o.shape.empty()) return core::Error::bad_input("--shape: required, e.g. --shape 16,16");
  DTPLAN_TRY(std::vector<std::int64_t> shape, core::parse_int_list(o.shape, "--shape"));
  for (std::int64_t s : shape) {
    if (s < 0) return core::Error::bad_input("--shape: size " + std::to_string(s) + " is negative");
  }
  DTPLAN_TRY(core::DType dtype, core::parse_dtype(o.dtype, "--dtype"));
  if (shape.size() > core::kMaxTensorRank) {
    return core::Error::unsupported(
        "--shape: " + std::to_string(shape.size()) + " dims; a tensor has at most " +
        std::to_string(core::kMaxTensorRank) + core::limit_note("kMaxTensorRank"));
  }
  DTPLAN_TRY(std::int64_t numel, core::checked_product(shape, "--shape " + o.shape + " elements"));
  DTPLAN_CHECK(core::checked_mul(numel, core::dtype_bytes(dtype),
                                 "--shape " + o.shape + " bytes (" + o.dtype + ")"));
  const std::vector<std::int64_t> sizes = loaded.root.shape();
  if (sizes.size() > core::kMaxPlacementMeshDims) {
    return core::Error::unsupported("--mesh: " + std::to_string(sizes.size()) +
                                    " dims; placements span at most " +
                                    std::to_string(core::kMaxPlacementMeshDims) + " mesh dims" +
                                    core::limit_note("kMaxPlacementMeshDims"));
  }
  DTPLAN_TRY(placement::TensorSpec src, read_spec(o.from, "--from", shape, dtype, sizes));
  DTPLAN_TRY(placement::TensorSpec dst, read_spec(o.to, "--to", shape, dtype, sizes));
  DTPLAN_TRY(redist::MeshContext ctx, redist::MeshContext::make(loaded.root, gpus, profile.name));
  return Request{
      std::make_unique<redist::Planner>(std::move(ctx), redist::make_cost_model(model, profile)),
      std::move(src), std::move(dst), redist::PlanOptions{planner, !o.no_merge}, profile};
}

void print_table(const redist::RedistPlan& plan, const sim::VerifyReport* verify) {
  const std::string mesh_name =
      plan.mesh.names.empty()
          ? core::format_int_list(plan.mesh.shape)
          : core::join(plan.mesh.names, ",") + " " + core::format_int_list(plan.mesh.shape);
  std::string title = "dtplan redistribute: " + placement::to_string(plan.src) + " -> " +
                      placement::format_placement_list(plan.dst) + "\n# mesh " + mesh_name +
                      flattened_text(plan.mesh) + ", " + hardware_text(plan.mesh) + "; " +
                      std::string(redist::planner_name(plan.planner)) + " planner" +
                      (plan.requested == plan.planner
                           ? ""
                           : " (" + std::string(redist::planner_name(plan.requested)) + ")") +
                      ", " + plan.model + " model, merge " + (plan.merge ? "on" : "off");
  core::TextTable t({{"step", ""},
                     {"collective", "", core::Align::kLeft},
                     {"mesh_dims", "", core::Align::kLeft},
                     {"flattened", "", core::Align::kLeft},
                     {"group", "ranks"},
                     {"bytes", "B"},
                     {"time", "us"},
                     {"algorithm", "", core::Align::kLeft},
                     {"protocol", "", core::Align::kLeft},
                     {"src", "", core::Align::kLeft},
                     {"dst", "", core::Align::kLeft},
                     {"state", "", core::Align::kLeft}},
                    title);
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const redist::PlanStep& s = plan.steps[i];
    const redist::Transform& tr = s.transform;
    std::string src = placement::to_string(tr.src);
    if (tr.avg_scale > 1) src += "/" + std::to_string(tr.avg_scale);
    t.add_row({std::to_string(i), std::string(redist::step_kind_name(tr.kind)),
               mesh_dims_text(plan.mesh, tr.mesh_dims), tr.flattened() ? tr.flattened_mesh : "-",
               std::to_string(s.group_size), std::to_string(s.bytes),
               report::nccl_float(s.cost_us, 8), std::string(cost::algorithm_name(s.algorithm)),
               std::string(cost::protocol_name(s.protocol)), src, placement::to_string(tr.dst),
               redist::state_text(s.state)});
  }
  std::string text = t.render();
  if (plan.steps.empty()) text += "# (no steps: the placements are equal)\n";
  const redist::CommCounts& c = plan.comm_counts;
  text += "# comm_counts: all_gather " + std::to_string(c.all_gather) + ", all_reduce " +
          std::to_string(c.all_reduce) + ", reduce_scatter " + std::to_string(c.reduce_scatter) +
          ", all_to_all " + std::to_string(c.all_to_all) + "\n";
  text += "# total_cost_us: " + core::format_fixed(plan.total_cost_us, 3) + "\n";
  text += "# trace: " + plan.trace + "\n";
  text += warning_lines(plan.mesh, plan.warnings);
  if (verify != nullptr) text += verify_line(*verify);
  print_text(text);
}

int run(const Options& o) {
  auto request = read_request(o);
  if (!request.ok()) return report("redistribute", request.error());
  Request& r = *request;
  auto plan = r.planner->plan(r.src, r.dst, r.options);
  if (!plan.ok()) return report("redistribute", plan.error());
  std::optional<sim::VerifyReport> verified;
  if (o.verify) {
    auto options = verify_options(o.verify_args);
    if (!options.ok()) return report("redistribute", options.error());
    options->hardware = r.profile;
    auto v = sim::verify_plan(**plan, *options);
    if (!v.ok()) return report("redistribute", v.error().with_context("--verify"));
    verified = std::move(v).value();
  }
  if (o.json) {
    Json doc = redist::plan_json(**plan);
    if (verified) doc["verify"] = sim::verify_json(*verified);
    print_json(doc);
  } else {
    print_table(**plan, verified ? &*verified : nullptr);
  }
  return 0;
}

}  // namespace

Action setup_redistribute(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--mesh", o->mesh,
                 "Mesh shape (e.g. 2,2,2) or a mesh file (configs/meshes/*.json)");
  app.add_option("--names", o->names, "Dim names of a --mesh shape, e.g. A,B,C");
  app.add_option("--flatten", o->flatten,
                 "Flatten root dims (repeatable): DIMS or DIMS=NAME, e.g. A,C; merges use only "
                 "flattened meshes created so")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--shape", o->shape, "Global tensor shape, e.g. 16,16,16");
  app.add_option("--dtype", o->dtype, "Element type")->capture_default_str();
  app.add_option("--from", o->from, "Source placements, one per mesh dim, e.g. P(sum),R,S(0)");
  app.add_option("--to", o->to, "Target placements, e.g. R,R,S(0)[1] ([k]: shard order)");
  app.add_option("--planner", o->planner,
                 "greedy (DTensor's default) | min-cost (exact) | auto (DTensor's rule)")
      ->capture_default_str();
  app.add_flag("--no-merge", o->no_merge, "Switch the flattened-mesh merge pass off");
  app.add_option("--hardware", o->hardware,
                 "Hardware profile name or JSON file; default: the mesh file's, else h100-dgx");
  app.add_option("--gpus-per-node", o->gpus_per_node,
                 "GPUs used per node (rank r is on node r / N); default: the profile's")
      ->type_name("INT");
  app.add_option("--model", o->model, "Cost model: nccl | dtensor (PyTorch's)")
      ->capture_default_str();
  app.add_flag("--verify", o->verify,
               "Run the plan on a fake process group with real data: wrong elements and whether "
               "replicas are bitwise equal");
  add_verify_flags(app, o->verify_args);
  add_json_flag(app, o->json);
  return [o] { return run(*o); };
}

}  // namespace dtplan::cli
