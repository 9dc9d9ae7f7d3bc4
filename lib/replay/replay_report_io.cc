#include "replay/replay_report_io.h"

#include <limits>
#include <nlohmann/json.hpp>

#include "core/json_io.h"
#include "core/text_file.h"
#include "placement/placement_text.h"

namespace dtplan::replay {

namespace {

using Json = nlohmann::ordered_json;
using collective::Collective;

Json nullable(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }

Json entry_json(const ReplayEntry& e) {
  const CollectiveJob& j = e.job;
  Json op = collective::facts(j.collective).reduces
                ? Json(std::string(placement::reduce_op_name(j.op)))
                : Json(nullptr);
  return Json{{"collective", collective::name(j.collective)},
              {"op", op},
              {"mesh_dims", j.mesh_dims},
              {"flattened_mesh", nullable(j.flattened_mesh)},
              {"group_size", j.group_size},
              {"groups", j.groups},
              {"nodes", j.topology.nodes},
              {"min_ranks_per_node", j.topology.min_ranks_per_node},
              {"max_ranks_per_node", j.topology.max_ranks_per_node},
              {"dtype", core::dtype_name(j.dtype)},
              {"bytes", j.bytes},
              {"size", j.nccl_bytes},
              {"count", j.count},
              {"predicted_us", j.predicted_us},
              {"measured_us", e.measured_us},
              {"min_us", e.min_us},
              {"max_us", e.max_us},
              {"predicted_busbw", e.predicted_busbw_gbps},
              {"measured_busbw", e.measured_busbw_gbps},
              {"error", e.error},
              {"check",
               {{"elements", e.check.elements},
                {"wrong_elements", e.check.wrong_elements},
                {"skipped", e.check.skipped}}},
              {"first_use", j.first_use}};
}

// Field access with errors "<source>: field '<path>': <what>".
class Reader {
 public:
  explicit Reader(std::string_view source) : source_(source) {}

  [[nodiscard]] core::Error error(const std::string& path, const std::string& what) const {
    return core::Error::bad_input(std::string(source_) + ": field '" + path + "': " + what);
  }
  core::Result<const Json*> get(const Json& obj, const std::string& key,
                                const std::string& path) const {
    const std::string at = path.empty() ? key : path + "." + key;
    if (!obj.is_object()) return error(path.empty() ? "(document)" : path, "expected an object");
    auto it = obj.find(key);
    if (it == obj.end()) return error(at, "missing");
    return &*it;
  }
  core::Result<std::int64_t> integer(const Json& obj, const std::string& key,
                                     const std::string& path) const {
    DTPLAN_TRY(const Json* j, get(obj, key, path));
    const bool fits = j->is_number_integer() &&
                      (!j->is_number_unsigned() ||
                       j->get<std::uint64_t>() <=
                           static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
    if (!fits) return error(at(path, key), "expected an integer");
    return j->get<std::int64_t>();
  }
  core::Result<std::int32_t> int32(const Json& obj, const std::string& key,
                                   const std::string& path) const {
    DTPLAN_TRY(std::int64_t v, integer(obj, key, path));
    if (v < 0 || v > std::numeric_limits<std::int32_t>::max()) {
      return error(at(path, key), "out of range: " + std::to_string(v));
    }
    return static_cast<std::int32_t>(v);
  }
  core::Result<double> number(const Json& obj, const std::string& key,
                              const std::string& path) const {
    DTPLAN_TRY(const Json* j, get(obj, key, path));
    if (!j->is_number()) return error(at(path, key), "expected a number");
    return j->get<double>();
  }
  core::Result<std::string> string(const Json& obj, const std::string& key, const std::string& path,
                                   bool nullable = false) const {
    DTPLAN_TRY(const Json* j, get(obj, key, path));
    if (nullable && j->is_null()) return std::string();
    if (!j->is_string()) return error(at(path, key), "expected a string");
    return j->get<std::string>();
  }
  core::Result<bool> boolean(const Json& obj, const std::string& key,
                             const std::string& path) const {
    DTPLAN_TRY(const Json* j, get(obj, key, path));
    if (!j->is_boolean()) return error(at(path, key), "expected true or false");
    return j->get<bool>();
  }
  core::Result<std::vector<std::int64_t>> int_list(const Json& j, const std::string& path) const {
    if (!j.is_array()) return error(path, "expected an array of integers");
    std::vector<std::int64_t> out;
    for (const Json& v : j) {
      if (!v.is_number_integer()) return error(path, "expected an array of integers");
      out.push_back(v.get<std::int64_t>());
    }
    return out;
  }
  static std::string at(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

 private:
  std::string_view source_;
};

core::Result<ReplayEntry> read_entry(const Reader& r, const Json& j, const std::string& path) {
  ReplayEntry e;
  CollectiveJob& job = e.job;
  DTPLAN_TRY(std::string name, r.string(j, "collective", path));
  auto c = collective::parse_collective(name, path + ".collective");
  if (!c.ok()) return r.error(path + ".collective", "unknown collective '" + name + "'");
  job.collective = *c;
  DTPLAN_TRY(std::string op, r.string(j, "op", path, true));
  if (collective::facts(job.collective).reduces) {
    auto parsed = placement::parse_reduce_op(op, path + ".op");
    if (!parsed.ok()) return r.error(path + ".op", "unknown reduction op '" + op + "'");
    job.op = *parsed;
  }
  DTPLAN_TRY(const Json* dims, r.get(j, "mesh_dims", path));
  DTPLAN_TRY(std::vector<std::int64_t> wide, r.int_list(*dims, path + ".mesh_dims"));
  for (std::int64_t d : wide) {
    if (d < 0 || d > 63) return r.error(path + ".mesh_dims", "mesh dim out of range");
    job.mesh_dims.push_back(static_cast<std::int32_t>(d));
  }
  DTPLAN_TRY(job.flattened_mesh, r.string(j, "flattened_mesh", path, true));
  DTPLAN_TRY(job.group_size, r.integer(j, "group_size", path));
  if (job.group_size < 2) return r.error(path + ".group_size", "must be at least 2");
  DTPLAN_TRY(const Json* groups, r.get(j, "groups", path));
  if (!groups->is_array()) return r.error(path + ".groups", "expected an array of rank lists");
  for (const Json& g : *groups) {
    DTPLAN_TRY(sim::Group group, r.int_list(g, path + ".groups"));
    job.groups.push_back(std::move(group));
  }
  job.topology.ranks = static_cast<std::int32_t>(
      std::min<std::int64_t>(job.group_size, std::numeric_limits<std::int32_t>::max()));
  DTPLAN_TRY(job.topology.nodes, r.int32(j, "nodes", path));
  DTPLAN_TRY(job.topology.min_ranks_per_node, r.int32(j, "min_ranks_per_node", path));
  DTPLAN_TRY(job.topology.max_ranks_per_node, r.int32(j, "max_ranks_per_node", path));
  // Some node holds min members, another max, the others between.
  const cost::GroupTopology& t = job.topology;
  const std::int64_t n = job.group_size;
  const std::int64_t lo = t.min_ranks_per_node, hi = t.max_ranks_per_node, nodes = t.nodes;
  const bool valid =
      nodes >= 1 && lo >= 1 && lo <= hi &&
      (lo == hi ? lo * nodes == n
                : nodes >= 2 && lo + hi + (nodes - 2) * lo <= n && n <= lo + hi + (nodes - 2) * hi);
  if (!valid) {
    return r.error(path + ".nodes", "nodes and ranks per node do not describe " +
                                        std::to_string(job.group_size) + " ranks");
  }
  DTPLAN_TRY(std::string dtype, r.string(j, "dtype", path));
  auto dt = core::parse_dtype(dtype, path + ".dtype");
  if (!dt.ok()) return r.error(path + ".dtype", "unknown dtype '" + dtype + "'");
  job.dtype = *dt;
  DTPLAN_TRY(job.bytes, r.integer(j, "bytes", path));
  DTPLAN_TRY(job.nccl_bytes, r.integer(j, "size", path));
  if (job.bytes < 1 || job.nccl_bytes < 1) return r.error(path + ".size", "must be positive");
  DTPLAN_TRY(job.count, r.integer(j, "count", path));
  DTPLAN_TRY(job.predicted_us, r.number(j, "predicted_us", path));
  DTPLAN_TRY(e.measured_us, r.number(j, "measured_us", path));
  DTPLAN_TRY(e.min_us, r.number(j, "min_us", path));
  DTPLAN_TRY(e.max_us, r.number(j, "max_us", path));
  if (!(e.measured_us >= 0) || !(e.min_us >= 0) || !(e.max_us >= 0)) {
    return r.error(path + ".measured_us", "times must be non-negative numbers");
  }
  DTPLAN_TRY(e.predicted_busbw_gbps, r.number(j, "predicted_busbw", path));
  DTPLAN_TRY(e.measured_busbw_gbps, r.number(j, "measured_busbw", path));
  DTPLAN_TRY(e.error, r.number(j, "error", path));
  DTPLAN_TRY(const Json* check, r.get(j, "check", path));
  DTPLAN_TRY(e.check.elements, r.integer(*check, "elements", path + ".check"));
  DTPLAN_TRY(e.check.wrong_elements, r.integer(*check, "wrong_elements", path + ".check"));
  DTPLAN_TRY(e.check.skipped, r.boolean(*check, "skipped", path + ".check"));
  DTPLAN_TRY(job.first_use, r.string(j, "first_use", path));
  return e;
}

core::Result<ComputeEntry> read_compute(const Reader& r, const Json& j, const std::string& path) {
  ComputeEntry e;
  GemmJob& g = e.job;
  DTPLAN_TRY(g.op, r.int32(j, "op", path));
  DTPLAN_TRY(g.name, r.string(j, "name", path));
  DTPLAN_TRY(g.m, r.integer(j, "m", path));
  DTPLAN_TRY(g.n, r.integer(j, "n", path));
  DTPLAN_TRY(g.k, r.integer(j, "k", path));
  DTPLAN_TRY(std::string dtype, r.string(j, "dtype", path));
  auto dt = core::parse_dtype(dtype, path + ".dtype");
  if (!dt.ok()) return r.error(path + ".dtype", "unknown dtype '" + dtype + "'");
  g.dtype = *dt;
  DTPLAN_TRY(g.count, r.integer(j, "count", path));
  DTPLAN_TRY(g.predicted_us, r.number(j, "predicted_us", path));
  DTPLAN_TRY(e.measured_us, r.number(j, "measured_us", path));
  DTPLAN_TRY(e.min_us, r.number(j, "min_us", path));
  DTPLAN_TRY(e.max_us, r.number(j, "max_us", path));
  DTPLAN_TRY(e.error, r.number(j, "error", path));
  DTPLAN_TRY(e.measured_tflops, r.number(j, "measured_tflops", path));
  return e;
}

}  // namespace

Json report_json(const ReplayReport& report) {
  Json doc;
  doc["plan"] = report.plan;
  doc["kind"] = plan_kind_name(report.kind);
  doc["model"] = nullable(report.model);
  doc["backend"] = report.backend;
  doc["launcher"] = report.launcher;
  doc["world"] = report.world;
  doc["processes"] = report.processes;
  doc["hardware"] = report.hardware;
  doc["gpus_per_node"] = report.gpus_per_node;
  doc["timing"] = {{"warmup", report.timing.warmup_iters},
                   {"iters", report.timing.iters},
                   {"launches", report.timing.launches_per_iter},
                   {"statistic", "median"}};
  Json entries = Json::array();
  for (const ReplayEntry& e : report.entries) entries.push_back(entry_json(e));
  doc["collectives"] = std::move(entries);
  doc["totals"] = {{"predicted_us", report.totals.predicted_us},
                   {"measured_us", report.totals.measured_us},
                   {"error", report.totals.error}};
  const ReplayVerify& v = report.verify;
  doc["verify"] = {
      {"ranks", v.ranks},
      {"redistributions", v.redistributions},
      {"skipped", v.skipped},
      {"elements", v.elements},
      {"wrong_elements", v.wrong_elements},
      {"fake_mismatches", v.fake_mismatches},
      {"replicas_bitwise_equal", v.replicas_bitwise_equal},
      {"replica_sets", v.replica_sets},
      {"differing_replica_sets", v.differing_replica_sets},
      {"collectives",
       {{"elements", v.collective_elements}, {"wrong_elements", v.collective_wrong_elements}}}};
  if (report.compute) {
    Json gemms = Json::array();
    for (const ComputeEntry& e : report.compute->entries) {
      const GemmJob& j = e.job;
      gemms.push_back({{"op", j.op},
                       {"name", j.name},
                       {"m", j.m},
                       {"n", j.n},
                       {"k", j.k},
                       {"dtype", core::dtype_name(j.dtype)},
                       {"count", j.count},
                       {"predicted_us", j.predicted_us},
                       {"measured_us", e.measured_us},
                       {"min_us", e.min_us},
                       {"max_us", e.max_us},
                       {"error", e.error},
                       {"measured_tflops", e.measured_tflops}});
    }
    doc["compute"] = {{"skipped", report.compute->skipped}, {"gemms", std::move(gemms)}};
  } else {
    doc["compute"] = nullptr;
  }
  return doc;
}

std::string report_to_json(const ReplayReport& report) {
  return report_json(report).dump(2) + "\n";
}

core::Result<ReplayReport> read_report_json(std::string_view text, std::string_view source) {
  DTPLAN_TRY(const Json doc, core::parse_json(text, source));
  const Reader r(source);
  ReplayReport report;
  DTPLAN_TRY(report.plan, r.string(doc, "plan", ""));
  DTPLAN_TRY(std::string kind, r.string(doc, "kind", ""));
  if (kind == "redistribute") {
    report.kind = PlanKind::kRedistribute;
  } else if (kind == "model") {
    report.kind = PlanKind::kModel;
  } else {
    return r.error("kind", "expected \"redistribute\" or \"model\", got \"" + kind + "\"");
  }
  DTPLAN_TRY(report.model, r.string(doc, "model", "", true));
  DTPLAN_TRY(report.backend, r.string(doc, "backend", ""));
  DTPLAN_TRY(report.launcher, r.string(doc, "launcher", ""));
  DTPLAN_TRY(report.world, r.integer(doc, "world", ""));
  DTPLAN_TRY(report.processes, r.integer(doc, "processes", ""));
  DTPLAN_TRY(report.hardware, r.string(doc, "hardware", ""));
  DTPLAN_TRY(report.gpus_per_node, r.integer(doc, "gpus_per_node", ""));
  if (report.gpus_per_node < 1) return r.error("gpus_per_node", "must be at least 1");
  DTPLAN_TRY(const Json* timing, r.get(doc, "timing", ""));
  DTPLAN_TRY(report.timing.warmup_iters, r.int32(*timing, "warmup", "timing"));
  DTPLAN_TRY(report.timing.iters, r.int32(*timing, "iters", "timing"));
  DTPLAN_TRY(report.timing.launches_per_iter, r.int32(*timing, "launches", "timing"));
  DTPLAN_TRY(const Json* entries, r.get(doc, "collectives", ""));
  if (!entries->is_array()) return r.error("collectives", "expected an array");
  for (std::size_t i = 0; i < entries->size(); ++i) {
    DTPLAN_TRY(ReplayEntry e,
               read_entry(r, (*entries)[i], "collectives[" + std::to_string(i) + "]"));
    report.entries.push_back(std::move(e));
  }
  DTPLAN_TRY(const Json* totals, r.get(doc, "totals", ""));
  DTPLAN_TRY(report.totals.predicted_us, r.number(*totals, "predicted_us", "totals"));
  DTPLAN_TRY(report.totals.measured_us, r.number(*totals, "measured_us", "totals"));
  DTPLAN_TRY(report.totals.error, r.number(*totals, "error", "totals"));
  DTPLAN_TRY(const Json* verify, r.get(doc, "verify", ""));
  ReplayVerify& v = report.verify;
  DTPLAN_TRY(v.ranks, r.integer(*verify, "ranks", "verify"));
  DTPLAN_TRY(v.redistributions, r.integer(*verify, "redistributions", "verify"));
  DTPLAN_TRY(v.skipped, r.integer(*verify, "skipped", "verify"));
  DTPLAN_TRY(v.elements, r.integer(*verify, "elements", "verify"));
  DTPLAN_TRY(v.wrong_elements, r.integer(*verify, "wrong_elements", "verify"));
  DTPLAN_TRY(v.fake_mismatches, r.integer(*verify, "fake_mismatches", "verify"));
  DTPLAN_TRY(v.replicas_bitwise_equal, r.boolean(*verify, "replicas_bitwise_equal", "verify"));
  DTPLAN_TRY(v.replica_sets, r.integer(*verify, "replica_sets", "verify"));
  DTPLAN_TRY(v.differing_replica_sets, r.integer(*verify, "differing_replica_sets", "verify"));
  DTPLAN_TRY(const Json* collectives, r.get(*verify, "collectives", "verify"));
  DTPLAN_TRY(v.collective_elements, r.integer(*collectives, "elements", "verify.collectives"));
  DTPLAN_TRY(v.collective_wrong_elements,
             r.integer(*collectives, "wrong_elements", "verify.collectives"));
  DTPLAN_TRY(const Json* compute, r.get(doc, "compute", ""));
  if (!compute->is_null()) {
    ComputeReport c;
    DTPLAN_TRY(c.skipped, r.integer(*compute, "skipped", "compute"));
    DTPLAN_TRY(const Json* gemms, r.get(*compute, "gemms", "compute"));
    if (!gemms->is_array()) return r.error("compute.gemms", "expected an array");
    for (std::size_t i = 0; i < gemms->size(); ++i) {
      DTPLAN_TRY(ComputeEntry e,
                 read_compute(r, (*gemms)[i], "compute.gemms[" + std::to_string(i) + "]"));
      c.entries.push_back(std::move(e));
    }
    report.compute = std::move(c);
  }
  return report;
}

core::Result<ReplayReport> load_report_file(const std::string& path) {
  DTPLAN_TRY(std::string text, core::read_text_file(path, "replay results file"));
  return read_report_json(text, path);
}

}  // namespace dtplan::replay
