// dtplan cost: nccl-tests-like predictions of one collective over a size sweep.
//
//   dtplan cost --collective all_reduce --ranks 16 --gpus-per-node 8 --hardware h100-dgx
//               [--group 0,8,16,...] [--sizes 8:8GiB:x2] [--nccl-version 2.28]
//               [--model nccl|alpha-beta] [--dtype f32] [--no-measured] [--json]

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "collective/collective.h"
#include "command.h"
#include "core/dtype.h"
#include "core/strings.h"
#include "core/text_table.h"
#include "core/units.h"
#include "cost/collective_model.h"
#include "hardware_arg.h"
#include "output.h"
#include "report/nccl_format.h"

namespace dtplan::cli {

namespace {

struct Options {
  std::string collective;
  std::string ranks;
  std::string group;
  std::string gpus_per_node;
  std::string hardware{kDefaultHardware};
  std::string sizes = "8:8GiB:x2";
  std::string nccl_version;
  std::string model = "nccl";
  std::string dtype = "f32";
  bool no_measured = false;
  bool json = false;
};

struct Row {
  std::int64_t size = 0;
  std::int64_t count = 0;
  cost::CollectiveCost cost;
};

struct Request {
  collective::Collective collective = collective::Collective::kAllReduce;
  cost::HardwareProfile profile;
  std::int64_t gpus_per_node = 0;
  cost::GroupTopology topology;
  std::vector<std::int64_t> group;
  std::vector<std::int64_t> sizes;
  cost::ModelKind kind = cost::ModelKind::kNccl;
  core::DType dtype = core::DType::kF32;
};

core::Result<Request> read_request(const Options& o) {
  Request r;
  DTPLAN_TRY(r.collective, collective::parse_collective(o.collective, "--collective"));
  DTPLAN_TRY(r.profile, load_hardware_arg(o.hardware, "--hardware"));
  if (!o.nccl_version.empty()) {
    DTPLAN_TRY(r.profile.nccl.version, cost::parse_nccl_version(o.nccl_version, "--nccl-version"));
  }
  DTPLAN_TRY(r.gpus_per_node, gpus_per_node_arg(o.gpus_per_node, r.profile));
  if (o.ranks.empty() == o.group.empty()) {
    return core::Error::bad_input(o.ranks.empty()
                                      ? "--ranks: one of --ranks N or --group LIST is required"
                                      : "--group: --ranks and --group are mutually exclusive");
  }
  if (!o.group.empty()) {
    DTPLAN_TRY(r.group, core::parse_int_list(o.group, "--group"));
    DTPLAN_TRY(r.topology, cost::group_topology(r.group, r.gpus_per_node, "--group"));
  } else {
    DTPLAN_TRY(std::int64_t n, core::parse_int(o.ranks, "--ranks"));
    DTPLAN_TRY(r.topology, cost::contiguous_topology(n, r.gpus_per_node, "--ranks"));
  }
  DTPLAN_TRY(r.sizes, core::parse_size_range(o.sizes, "--sizes"));
  DTPLAN_TRY(r.kind, cost::parse_model_kind(o.model, "--model"));
  DTPLAN_TRY(r.dtype, core::parse_dtype(o.dtype, "--dtype"));
  return r;
}

core::Result<std::vector<Row>> price(const Request& r, bool use_measured) {
  auto model = cost::make_collective_model(r.profile, {r.kind, use_measured, false});
  int element = core::dtype_bytes(r.dtype);
  std::vector<Row> rows;
  for (std::int64_t requested : r.sizes) {
    Row row;
    row.size = collective::nccl_tests_size(r.collective, requested, element, r.topology.ranks);
    row.count = collective::nccl_tests_count(r.collective, requested, element, r.topology.ranks);
    DTPLAN_TRY(row.cost, model->cost(r.collective, row.size, r.topology));
    rows.push_back(row);
  }
  return rows;
}

void print_table(const Request& r, const std::vector<Row>& rows) {
  std::string title = "dtplan cost: " + std::string(collective::name(r.collective)) + " on " +
                      cost::describe(r.topology) + ", " + r.profile.name + ", " +
                      std::string(cost::model_kind_name(r.kind)) + " model (NCCL " +
                      std::string(cost::nccl_version_name(r.profile.nccl.version)) + ")";
  core::TextTable table({{"size", "B"},
                         {"count", "elements"},
                         {"type", ""},
                         {"time", "us"},
                         {"algbw", "GB/s"},
                         {"busbw", "GB/s"},
                         {"algorithm", "", core::Align::kLeft},
                         {"protocol", "", core::Align::kLeft},
                         {"channels", ""},
                         {"lat", "us"},
                         {"bw", "us"}},
                        title);
  for (const Row& row : rows) {
    table.add_row({std::to_string(row.size), std::to_string(row.count),
                   std::string(core::dtype_name(r.dtype)), report::nccl_float(row.cost.time_us, 7),
                   report::nccl_float(row.cost.algbw_gbyte_per_s, 6),
                   report::nccl_float(row.cost.busbw_gbyte_per_s, 6),
                   std::string(cost::algorithm_name(row.cost.algorithm)),
                   std::string(cost::protocol_name(row.cost.protocol)),
                   row.cost.channels > 0 ? std::to_string(row.cost.channels) : "-",
                   report::nccl_float(row.cost.latency_us, 7),
                   report::nccl_float(row.cost.bandwidth_us, 7)});
  }
  print_text(table.render());
}

void print_doc(const Request& r, const std::vector<Row>& rows) {
  Json doc;
  doc["collective"] = collective::name(r.collective);
  doc["ranks"] = r.topology.ranks;
  doc["nodes"] = r.topology.nodes;
  doc["min_ranks_per_node"] = r.topology.min_ranks_per_node;
  doc["max_ranks_per_node"] = r.topology.max_ranks_per_node;
  doc["gpus_per_node"] = r.gpus_per_node;
  if (!r.group.empty()) doc["group"] = r.group;
  doc["hardware"] = r.profile.name;
  doc["model"] = cost::model_kind_name(r.kind);
  doc["nccl_version"] = cost::nccl_version_name(r.profile.nccl.version);
  doc["dtype"] = core::dtype_name(r.dtype);
  Json out = Json::array();
  for (const Row& row : rows) {
    out.push_back({{"size", row.size},
                   {"count", row.count},
                   {"time_us", row.cost.time_us},
                   {"algbw", row.cost.algbw_gbyte_per_s},
                   {"busbw", row.cost.busbw_gbyte_per_s},
                   {"algorithm", cost::algorithm_name(row.cost.algorithm)},
                   {"protocol", cost::protocol_name(row.cost.protocol)},
                   {"channels", row.cost.channels},
                   {"lat_us", row.cost.latency_us},
                   {"bw_us", row.cost.bandwidth_us}});
  }
  doc["rows"] = out;
  print_json(doc);
}

}  // namespace

Action setup_cost(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--collective", o->collective,
                 "all_reduce | all_gather | reduce_scatter | all_to_all | broadcast | reduce")
      ->required();
  app.add_option("--ranks", o->ranks, "Group of ranks 0..N-1, laid out node by node")
      ->type_name("INT");
  app.add_option("--group", o->group, "Explicit comma-separated global ranks (irregular groups)");
  app.add_option("--gpus-per-node", o->gpus_per_node,
                 "GPUs used per node (rank r is on node r / N); default: the profile's")
      ->type_name("INT");
  app.add_option("--hardware", o->hardware, "Hardware profile name or JSON file")
      ->capture_default_str();
  app.add_option("--sizes", o->sizes, "Size sweep MIN:MAX:xF or MIN:MAX:+STEP (nccl-tests S)")
      ->capture_default_str();
  app.add_option("--nccl-version", o->nccl_version,
                 "NCCL constants: 2.18, 2.21 (2.19-2.22), 2.23 (2.23-2.27), 2.28; default: "
                 "the profile's");
  app.add_option("--model", o->model, "Cost model: nccl | alpha-beta")->capture_default_str();
  app.add_option("--dtype", o->dtype, "Element type for the count column")->capture_default_str();
  app.add_flag("--no-measured", o->no_measured, "Ignore the profile's measured tables");
  add_json_flag(app, o->json);
  return [o] {
    auto request = read_request(*o);
    if (!request.ok()) return report("cost", request.error());
    auto rows = price(request.value(), !o->no_measured);
    if (!rows.ok()) return report("cost", rows.error());
    if (o->json) {
      print_doc(request.value(), rows.value());
    } else {
      print_table(request.value(), rows.value());
    }
    return 0;
  };
}

}  // namespace dtplan::cli
