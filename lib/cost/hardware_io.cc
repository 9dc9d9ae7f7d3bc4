#include "cost/hardware_io.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "core/json_io.h"
#include "core/strings.h"
#include "core/text_file.h"

namespace dtplan::cost {

namespace {

using Json = nlohmann::ordered_json;
using OrderedJson = nlohmann::ordered_json;

// Reads the fields of one JSON object, remembering which keys were used so that unknown keys
// can be reported. Every error names the field path.
class Fields {
 public:
  Fields(const Json& object, std::string path) : object_(object), path_(std::move(path)) {}

  [[nodiscard]] std::string at(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }

  const Json* find(std::string_view key) {
    used_.insert(std::string(key));
    auto it = object_.find(std::string(key));
    return it == object_.end() ? nullptr : &*it;
  }

  core::Result<const Json*> require(std::string_view key) {
    const Json* v = find(key);
    if (v == nullptr) return bad(at(key), "missing (required)");
    return v;
  }

  core::Status number(std::string_view key, double& out, bool required) {
    const Json* v = find(key);
    if (v == nullptr) return required ? bad(at(key), "missing (required)") : core::Status{};
    if (!v->is_number()) return bad(at(key), "must be a number, got " + v->dump());
    out = v->get<double>();
    return {};
  }

  template <class Int>
  core::Status integer(std::string_view key, Int& out, bool required) {
    const Json* v = find(key);
    if (v == nullptr) return required ? bad(at(key), "missing (required)") : core::Status{};
    return to_integer(*v, at(key), out);
  }

  core::Status text(std::string_view key, std::string& out, bool required) {
    const Json* v = find(key);
    if (v == nullptr) return required ? bad(at(key), "missing (required)") : core::Status{};
    if (!v->is_string()) return bad(at(key), "must be a string, got " + v->dump());
    out = v->get<std::string>();
    return {};
  }

  core::Status boolean(std::string_view key, bool& out) {
    const Json* v = find(key);
    if (v == nullptr) return {};
    if (!v->is_boolean()) return bad(at(key), "must be true or false, got " + v->dump());
    out = v->get<bool>();
    return {};
  }

  // Error for the first key that was never asked for.
  core::Status finish() const {
    std::vector<std::string> known(used_.begin(), used_.end());
    for (auto it = object_.begin(); it != object_.end(); ++it) {
      if (used_.count(it.key()) != 0) continue;
      std::string message = "unknown field";
      if (auto near = core::closest_name(it.key(), known)) {
        message += "; did you mean '" + at(*near) + "'?";
      }
      return bad(at(it.key()), message);
    }
    return {};
  }

  template <class Int>
  static core::Status to_integer(const Json& v, const std::string& where, Int& out) {
    double d = v.is_number() ? v.get<double>() : std::nan("");
    if (!v.is_number() || std::floor(d) != d ||
        d < static_cast<double>(std::numeric_limits<Int>::min()) ||
        d > static_cast<double>(std::numeric_limits<Int>::max())) {
      return bad(where, "must be an integer, got " + v.dump());
    }
    out = v.is_number_integer() ? v.get<Int>() : static_cast<Int>(d);
    return {};
  }

  static core::Error bad(const std::string& where, const std::string& message) {
    return core::Error::bad_input(where + ": " + message);
  }

 private:
  const Json& object_;
  std::string path_;
  std::set<std::string> used_;
};

core::Result<Fields> section(Fields& parent, std::string_view key, bool required) {
  const Json* v = parent.find(key);
  static const Json kEmpty = Json::object();
  if (v == nullptr) {
    if (required) return Fields::bad(parent.at(key), "missing (required)");
    return Fields(kEmpty, parent.at(key));
  }
  if (!v->is_object()) return Fields::bad(parent.at(key), "must be an object, got " + v->dump());
  return Fields(*v, parent.at(key));
}

core::Status read_gpu(Fields& f, GpuSpec& gpu) {
  DTPLAN_CHECK(f.text("model", gpu.model, true));
  std::string arch;
  DTPLAN_CHECK(f.text("arch", arch, true));
  DTPLAN_TRY(gpu.arch, parse_arch(arch, f.at("arch")));
  DTPLAN_TRY(const Json* peaks, f.require("peak_flop_per_s"));
  if (!peaks->is_object()) {
    return Fields::bad(f.at("peak_flop_per_s"), "must be an object {dtype: FLOP/s}");
  }
  for (auto it = peaks->begin(); it != peaks->end(); ++it) {
    std::string where = f.at("peak_flop_per_s") + "." + it.key();
    DTPLAN_TRY(core::DType dt, core::parse_dtype(it.key(), where));
    if (!it->is_number()) return Fields::bad(where, "must be a number, got " + it->dump());
    gpu.peak_flop_per_s[static_cast<std::size_t>(dt)] = it->get<double>();
  }
  DTPLAN_CHECK(f.number("hbm_byte_per_s", gpu.hbm_byte_per_s, true));
  DTPLAN_CHECK(f.integer("hbm_capacity_bytes", gpu.hbm_capacity_bytes, false));
  return f.finish();
}

core::Status read_node(Fields& f, NodeSpec& node) {
  DTPLAN_CHECK(f.integer("gpus_per_node", node.gpus_per_node, true));
  std::string text;
  DTPLAN_CHECK(f.text("cpu_vendor", text, true));
  DTPLAN_TRY(node.cpu_vendor, parse_cpu_vendor(text, f.at("cpu_vendor")));
  DTPLAN_CHECK(f.text("intra_fabric", text, true));
  DTPLAN_TRY(node.intra_fabric, parse_fabric(text, f.at("intra_fabric")));
  bool nvswitch = node.intra_fabric == IntraFabric::kNvSwitch;
  DTPLAN_CHECK(f.integer("nvlink_links_per_gpu", node.nvlink_links_per_gpu, nvswitch));
  DTPLAN_CHECK(f.number("nvlink_link_gbyte_per_s", node.nvlink_link_gbyte_per_s, nvswitch));
  DTPLAN_CHECK(f.boolean("nvls", node.nvls));
  DTPLAN_CHECK(f.number("pcie_gbyte_per_s", node.pcie_gbyte_per_s, true));
  DTPLAN_CHECK(f.integer("nics_per_node", node.nics_per_node, true));
  DTPLAN_CHECK(f.number("nic_gbit_per_s", node.nic_gbit_per_s, true));
  return f.finish();
}

core::Status read_measured(const Json& entry, const std::string& where, MeasuredTable& t) {
  if (!entry.is_object()) return Fields::bad(where, "must be an object");
  Fields f(entry, where);
  std::string name;
  DTPLAN_CHECK(f.text("collective", name, true));
  DTPLAN_TRY(t.collective, collective::parse_collective(name, f.at("collective")));
  DTPLAN_CHECK(f.integer("ranks", t.layout.ranks, true));
  DTPLAN_CHECK(f.integer("nodes", t.layout.nodes, true));
  t.layout.min_ranks_per_node = 0;
  t.layout.max_ranks_per_node = 0;
  DTPLAN_CHECK(f.integer("min_ranks_per_node", t.layout.min_ranks_per_node, false));
  DTPLAN_CHECK(f.integer("max_ranks_per_node", t.layout.max_ranks_per_node, false));
  if (t.layout.nodes >= 1 && t.layout.min_ranks_per_node == 0 && t.layout.max_ranks_per_node == 0) {
    if (t.layout.ranks % t.layout.nodes != 0) {
      return Fields::bad(where,
                         "min_ranks_per_node and max_ranks_per_node are required when "
                         "ranks is not a multiple of nodes");
    }
    t.layout.min_ranks_per_node = t.layout.max_ranks_per_node = t.layout.ranks / t.layout.nodes;
  }
  DTPLAN_CHECK(f.text("source", t.source, false));
  DTPLAN_TRY(const Json* points, f.require("points"));
  if (!points->is_array()) return Fields::bad(f.at("points"), "must be an array of [size, us]");
  for (std::size_t i = 0; i < points->size(); ++i) {
    const Json& p = (*points)[i];
    std::string at = f.at("points") + "[" + std::to_string(i) + "]";
    if (!p.is_array() || p.size() != 2 || !p[1].is_number()) {
      return Fields::bad(at, "must be [size_bytes, time_us], got " + p.dump());
    }
    MeasuredPoint pt;
    DTPLAN_CHECK(Fields::to_integer(p[0], at + "[0]", pt.size_bytes));
    pt.time_us = p[1].get<double>();
    t.points.push_back(pt);
  }
  return f.finish();
}

// [[key, efficiency], ...] (kernel_efficiency.h); validate() checks the values.
core::Status read_table(Fields& f, std::string_view key, std::vector<EfficiencyPoint>& out,
                        bool required) {
  const Json* v = f.find(key);
  if (v == nullptr) return required ? Fields::bad(f.at(key), "missing (required)") : core::Status{};
  if (!v->is_array()) return Fields::bad(f.at(key), "must be an array of [key, efficiency]");
  for (std::size_t i = 0; i < v->size(); ++i) {
    const Json& p = (*v)[i];
    if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_number()) {
      return Fields::bad(f.at(key) + "[" + std::to_string(i) + "]",
                         "must be [key, efficiency], got " + p.dump());
    }
    out.push_back({p[0].get<double>(), p[1].get<double>()});
  }
  return {};
}

core::Status read_compute(Fields& top, ComputeEfficiency& c) {
  DTPLAN_TRY(Fields comp, section(top, "compute", false));
  DTPLAN_CHECK(comp.number("compute_efficiency", c.compute_efficiency, false));
  DTPLAN_CHECK(comp.number("memory_efficiency", c.memory_efficiency, false));
  DTPLAN_CHECK(comp.number("launch_floor_us", c.launch_floor_us, false));
  DTPLAN_CHECK(read_table(comp, "gemm_efficiency", c.gemm, false));
  if (comp.find("attention") != nullptr) {
    DTPLAN_TRY(Fields att, section(comp, "attention", true));
    AttentionEfficiency a;
    std::string kernel;
    DTPLAN_CHECK(att.text("kernel", kernel, true));
    DTPLAN_TRY(a.kernel, parse_attention_kernel(kernel, att.at("kernel")));
    DTPLAN_CHECK(read_table(att, "forward", a.forward, true));
    DTPLAN_CHECK(read_table(att, "backward", a.backward, true));
    DTPLAN_CHECK(att.finish());
    c.attention = std::move(a);
  }
  DTPLAN_CHECK(comp.number("tensor_throughput_factor", c.tensor_throughput_factor, false));
  DTPLAN_CHECK(comp.number("nccl_overlap_compute_factor", c.nccl_overlap_compute_factor, false));
  return comp.finish();
}

OrderedJson table_json(const std::vector<EfficiencyPoint>& points) {
  OrderedJson out = OrderedJson::array();
  for (const EfficiencyPoint& p : points) out.push_back({p.at, p.efficiency});
  return out;
}

OrderedJson compute_json(const ComputeEfficiency& c) {
  OrderedJson out = {{"compute_efficiency", c.compute_efficiency},
                     {"memory_efficiency", c.memory_efficiency},
                     {"launch_floor_us", c.launch_floor_us}};
  if (!c.gemm.empty()) out["gemm_efficiency"] = table_json(c.gemm);
  if (c.attention) {
    out["attention"] = {{"kernel", attention_kernel_name(c.attention->kernel)},
                        {"forward", table_json(c.attention->forward)},
                        {"backward", table_json(c.attention->backward)}};
  }
  out["tensor_throughput_factor"] = c.tensor_throughput_factor;
  out["nccl_overlap_compute_factor"] = c.nccl_overlap_compute_factor;
  return out;
}

core::Result<HardwareProfile> read_profile(const Json& doc) {
  if (!doc.is_object()) return Fields::bad("(document)", "must be a JSON object");
  HardwareProfile p;
  Fields top(doc, "");
  DTPLAN_CHECK(top.text("name", p.name, true));
  DTPLAN_CHECK(top.text("description", p.description, false));
  if (const Json* notes = top.find("notes")) {
    if (!notes->is_array()) return Fields::bad("notes", "must be an array of strings");
    for (const Json& n : *notes) {
      if (!n.is_string()) return Fields::bad("notes", "must be an array of strings");
      p.notes.push_back(n.get<std::string>());
    }
  }
  DTPLAN_TRY(Fields gpu, section(top, "gpu", true));
  DTPLAN_CHECK(read_gpu(gpu, p.gpu));
  DTPLAN_TRY(Fields node, section(top, "node", true));
  DTPLAN_CHECK(read_node(node, p.node));

  DTPLAN_TRY(Fields nccl, section(top, "nccl", false));
  std::string version(nccl_version_name(p.nccl.version));
  DTPLAN_CHECK(nccl.text("version", version, false));
  DTPLAN_TRY(p.nccl.version, parse_nccl_version(version, nccl.at("version")));
  DTPLAN_CHECK(nccl.boolean("collnet", p.nccl.collnet));
  DTPLAN_CHECK(nccl.finish());

  DTPLAN_TRY(Fields coll, section(top, "collective", false));
  DTPLAN_CHECK(coll.number("launch_floor_us", p.collective.launch_floor_us, false));
  DTPLAN_CHECK(coll.number("straggler_skew_us", p.collective.straggler_skew_us, false));
  DTPLAN_CHECK(coll.finish());

  DTPLAN_TRY(Fields fabric, section(top, "fabric", false));
  DTPLAN_CHECK(fabric.number("nic_efficiency", p.fabric.nic_efficiency, false));
  DTPLAN_CHECK(fabric.number("nic_efficiency_at_scale", p.fabric.nic_efficiency_at_scale, false));
  DTPLAN_CHECK(
      fabric.number("nic_efficiency_per_doubling", p.fabric.nic_efficiency_per_doubling, false));
  DTPLAN_CHECK(fabric.finish());

  DTPLAN_CHECK(read_compute(top, p.compute));

  if (doc.contains("alpha_beta")) {
    DTPLAN_TRY(Fields ab, section(top, "alpha_beta", true));
    AlphaBetaParams a;
    DTPLAN_CHECK(ab.number("launch_us", a.launch_us, true));
    DTPLAN_CHECK(ab.number("intra_hop_us", a.intra_hop_us, true));
    DTPLAN_CHECK(ab.number("intra_gbyte_per_s", a.intra_gbyte_per_s, true));
    DTPLAN_CHECK(ab.number("inter_hop_us", a.inter_hop_us, true));
    DTPLAN_CHECK(ab.number("nic_gbyte_per_s", a.nic_gbyte_per_s, true));
    DTPLAN_CHECK(ab.finish());
    p.alpha_beta = a;
  }
  if (const Json* measured = top.find("measured")) {
    if (!measured->is_array()) return Fields::bad("measured", "must be an array of tables");
    for (std::size_t i = 0; i < measured->size(); ++i) {
      MeasuredTable t;
      DTPLAN_CHECK(read_measured((*measured)[i], "measured[" + std::to_string(i) + "]", t));
      p.measured.push_back(std::move(t));
    }
  }
  DTPLAN_CHECK(top.finish());
  DTPLAN_CHECK(validate(p));
  return p;
}

bool is_profile_name(std::string_view name) {
  if (name.empty() || name.front() == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

}  // namespace

core::Result<HardwareProfile> parse_hardware_json(std::string_view text, std::string_view source) {
  DTPLAN_TRY(const Json doc, core::parse_json(text, source));
  auto r = read_profile(doc);
  if (!r.ok()) return r.error().with_context(source);
  return r;
}

std::string hardware_to_json(const HardwareProfile& p) {
  OrderedJson doc;
  doc["name"] = p.name;
  if (!p.description.empty()) doc["description"] = p.description;
  if (!p.notes.empty()) doc["notes"] = p.notes;
  OrderedJson gpu;
  gpu["model"] = p.gpu.model;
  gpu["arch"] = arch_name(p.gpu.arch);
  OrderedJson peaks = OrderedJson::object();
  for (std::size_t i = 0; i < kDTypeSlots; ++i) {
    double v = p.gpu.peak_flop_per_s[i];
    if (v > 0) peaks[std::string(core::dtype_name(static_cast<core::DType>(i)))] = v;
  }
  gpu["peak_flop_per_s"] = peaks;
  gpu["hbm_byte_per_s"] = p.gpu.hbm_byte_per_s;
  gpu["hbm_capacity_bytes"] = p.gpu.hbm_capacity_bytes;
  doc["gpu"] = gpu;
  const NodeSpec& n = p.node;
  OrderedJson node;
  node["gpus_per_node"] = n.gpus_per_node;
  node["cpu_vendor"] = cpu_vendor_name(n.cpu_vendor);
  node["intra_fabric"] = fabric_name(n.intra_fabric);
  if (n.intra_fabric == IntraFabric::kNvSwitch) {
    node["nvlink_links_per_gpu"] = n.nvlink_links_per_gpu;
    node["nvlink_link_gbyte_per_s"] = n.nvlink_link_gbyte_per_s;
  }
  node["nvls"] = n.nvls;
  node["pcie_gbyte_per_s"] = n.pcie_gbyte_per_s;
  node["nics_per_node"] = n.nics_per_node;
  node["nic_gbit_per_s"] = n.nic_gbit_per_s;
  doc["node"] = node;
  doc["nccl"] = {{"version", nccl_version_name(p.nccl.version)}, {"collnet", p.nccl.collnet}};
  doc["collective"] = {{"launch_floor_us", p.collective.launch_floor_us},
                       {"straggler_skew_us", p.collective.straggler_skew_us}};
  doc["fabric"] = {{"nic_efficiency", p.fabric.nic_efficiency},
                   {"nic_efficiency_at_scale", p.fabric.nic_efficiency_at_scale},
                   {"nic_efficiency_per_doubling", p.fabric.nic_efficiency_per_doubling}};
  doc["compute"] = compute_json(p.compute);
  if (p.alpha_beta) {
    const AlphaBetaParams& a = *p.alpha_beta;
    doc["alpha_beta"] = {{"launch_us", a.launch_us},
                         {"intra_hop_us", a.intra_hop_us},
                         {"intra_gbyte_per_s", a.intra_gbyte_per_s},
                         {"inter_hop_us", a.inter_hop_us},
                         {"nic_gbyte_per_s", a.nic_gbyte_per_s}};
  }
  if (!p.measured.empty()) {
    OrderedJson tables = OrderedJson::array();
    for (const MeasuredTable& t : p.measured) {
      OrderedJson e;
      e["collective"] = collective::name(t.collective);
      e["ranks"] = t.layout.ranks;
      e["nodes"] = t.layout.nodes;
      e["min_ranks_per_node"] = t.layout.min_ranks_per_node;
      e["max_ranks_per_node"] = t.layout.max_ranks_per_node;
      if (!t.source.empty()) e["source"] = t.source;
      OrderedJson points = OrderedJson::array();
      for (const MeasuredPoint& pt : t.points) points.push_back({pt.size_bytes, pt.time_us});
      e["points"] = points;
      tables.push_back(e);
    }
    doc["measured"] = tables;
  }
  return doc.dump(2) + "\n";
}

namespace {

// Reads a profile file; errors name the file.
core::Result<HardwareProfile> load_hardware_file(const std::filesystem::path& path) {
  DTPLAN_TRY(std::string text, core::read_text_file(path.string(), "hardware profile file"));
  return parse_hardware_json(text, path.string());
}

}  // namespace

ConfigSearch config_search(const std::filesystem::path& executable) {
  namespace fs = std::filesystem;
  ConfigSearch out;
  auto add = [&](const fs::path& p) {
    std::error_code ec;
    if (!fs::is_directory(p / "hardware", ec)) return;
    fs::path canon = fs::weakly_canonical(p, ec);
    if (std::find(out.roots.begin(), out.roots.end(), canon) == out.roots.end()) {
      out.roots.push_back(canon);
    }
  };
  if (const char* env = std::getenv("DTPLAN_CONFIG_DIR"); env != nullptr && *env != '\0') {
    add(fs::path(env));
  }
  auto walk_up = [&](fs::path dir) {
    for (int depth = 0; depth < 16 && !dir.empty(); ++depth) {
      add(dir / "configs");
      add(dir / "share" / "dtplan" / "configs");  // an install prefix: P/bin/dtplan
      fs::path parent = dir.parent_path();
      if (parent == dir) break;
      dir = parent;
    }
  };
  std::error_code ec;
  if (!executable.empty()) walk_up(fs::absolute(executable, ec).parent_path());
  walk_up(fs::current_path(ec));
  return out;
}

core::Result<HardwareProfile> load_hardware(std::string_view name_or_path,
                                            const ConfigSearch& search, std::string_view what) {
  namespace fs = std::filesystem;
  std::string arg(core::trim(name_or_path));
  if (arg.find('/') != std::string::npos || arg.ends_with(".json")) {
    // Not only regular files: a device or a pipe is read as any input is, up to the input cap.
    std::error_code ec;
    if (!fs::exists(arg, ec)) {
      return core::Error::bad_input(std::string(what) + ": hardware profile file '" + arg +
                                    "' not found");
    }
    return load_hardware_file(arg);
  }
  if (is_profile_name(arg)) {
    for (const fs::path& root : search.roots) {
      fs::path file = root / "hardware" / (arg + ".json");
      std::error_code ec;
      if (fs::is_regular_file(file, ec)) return load_hardware_file(file);
    }
  }
  std::vector<std::string> known = list_hardware(search);
  std::string message = std::string(what) + ": no hardware profile '" + arg + "'";
  if (auto near = core::closest_name(arg, known)) message += "; did you mean '" + *near + "'?";
  if (known.empty()) {
    message += " (no configs/hardware folder found; set DTPLAN_CONFIG_DIR or pass a file)";
  } else {
    message += " (known: " + core::join(known, ", ") + ")";
  }
  return core::Error::bad_input(std::move(message));
}

std::vector<std::string> list_hardware(const ConfigSearch& search) {
  namespace fs = std::filesystem;
  std::set<std::string> names;
  for (const fs::path& root : search.roots) {
    std::error_code ec;
    for (fs::directory_iterator it(root / "hardware", ec), end; !ec && it != end;
         it.increment(ec)) {
      if (it->path().extension() == ".json") names.insert(it->path().stem().string());
    }
  }
  return {names.begin(), names.end()};
}

}  // namespace dtplan::cost
