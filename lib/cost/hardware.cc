#include "cost/hardware.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/units.h"

namespace dtplan::cost {

static_assert(static_cast<std::size_t>(core::DType::kF8E4M3) < kDTypeSlots);

namespace {

core::Error field_error(const std::string& field, const std::string& message) {
  return core::Error::bad_input(field + ": " + message);
}

std::string number(double v) {
  std::string s = std::to_string(v);
  while (s.size() > 1 && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

core::Status positive(const std::string& field, double v) {
  if (!(v > 0) || !std::isfinite(v)) return field_error(field, "must be > 0, got " + number(v));
  return {};
}

core::Status non_negative(const std::string& field, double v) {
  if (!(v >= 0) || !std::isfinite(v)) return field_error(field, "must be >= 0, got " + number(v));
  return {};
}

core::Status fraction(const std::string& field, double v) {
  if (!(v > 0 && v <= 1)) return field_error(field, "must be in (0, 1], got " + number(v));
  return {};
}

core::Status validate_measured(const MeasuredTable& t, const std::string& where,
                               std::int32_t gpus_per_node) {
  const GroupTopology& l = t.layout;
  if (l.ranks < 2 || l.nodes < 1 || l.min_ranks_per_node < 1 ||
      l.min_ranks_per_node > l.max_ranks_per_node ||
      static_cast<std::int64_t>(l.nodes) * l.min_ranks_per_node > l.ranks ||
      static_cast<std::int64_t>(l.nodes) * l.max_ranks_per_node < l.ranks) {
    return field_error(where, "inconsistent layout " + describe(l) +
                                  " (need ranks >= 2 and nodes x min <= ranks <= nodes x max)");
  }
  if (l.max_ranks_per_node > gpus_per_node) {
    return field_error(where, describe(l) + " puts " + std::to_string(l.max_ranks_per_node) +
                                  " ranks on a node of " + std::to_string(gpus_per_node) + " GPUs");
  }
  if (t.points.empty()) return field_error(where + ".points", "no points");
  for (std::size_t i = 0; i < t.points.size(); ++i) {
    std::string p = where + ".points[" + std::to_string(i) + "]";
    const MeasuredPoint& pt = t.points[i];
    if (pt.size_bytes <= 0) {
      return field_error(p, "size must be > 0, got " + std::to_string(pt.size_bytes));
    }
    DTPLAN_CHECK(positive(p + " time_us", pt.time_us));
    if (i > 0) {
      const MeasuredPoint& prev = t.points[i - 1];
      if (pt.size_bytes <= prev.size_bytes) {
        return field_error(p, "size " + std::to_string(pt.size_bytes) +
                                  " does not increase (previous " +
                                  std::to_string(prev.size_bytes) + ")");
      }
      if (pt.time_us < prev.time_us) {
        return field_error(p, "time " + number(pt.time_us) + " us is below the previous point's " +
                                  number(prev.time_us) + " us; times must not decrease with size");
      }
    }
  }
  return {};
}

}  // namespace

core::Status validate(const HardwareProfile& p) {
  if (p.name.empty()) return field_error("name", "must not be empty");
  bool any_peak = false;
  for (double v : p.gpu.peak_flop_per_s) {
    DTPLAN_CHECK(non_negative("gpu.peak_flop_per_s", v));
    any_peak = any_peak || v > 0;
  }
  if (!any_peak) return field_error("gpu.peak_flop_per_s", "needs at least one dtype");
  DTPLAN_CHECK(positive("gpu.hbm_byte_per_s", p.gpu.hbm_byte_per_s));
  if (p.gpu.hbm_capacity_bytes < 0) {
    return field_error("gpu.hbm_capacity_bytes", "must be >= 0");
  }
  const NodeSpec& n = p.node;
  if (n.gpus_per_node < 1 || n.gpus_per_node > 4096) {
    return field_error("node.gpus_per_node",
                       "must be in [1, 4096], got " + std::to_string(n.gpus_per_node));
  }
  if (n.intra_fabric == IntraFabric::kNvSwitch) {
    if (n.nvlink_links_per_gpu < 1) {
      return field_error("node.nvlink_links_per_gpu", "must be >= 1 with an nvswitch fabric, got " +
                                                          std::to_string(n.nvlink_links_per_gpu));
    }
    DTPLAN_CHECK(positive("node.nvlink_link_gbyte_per_s", n.nvlink_link_gbyte_per_s));
  } else if (n.nvls) {
    return field_error("node.nvls", "NVLS needs an nvswitch fabric");
  }
  DTPLAN_CHECK(positive("node.pcie_gbyte_per_s", n.pcie_gbyte_per_s));
  if (n.nics_per_node < 1) {
    return field_error("node.nics_per_node",
                       "must be >= 1, got " + std::to_string(n.nics_per_node));
  }
  DTPLAN_CHECK(positive("node.nic_gbit_per_s", n.nic_gbit_per_s));
  DTPLAN_CHECK(non_negative("collective.launch_floor_us", p.collective.launch_floor_us));
  DTPLAN_CHECK(non_negative("collective.straggler_skew_us", p.collective.straggler_skew_us));
  DTPLAN_CHECK(fraction("fabric.nic_efficiency", p.fabric.nic_efficiency));
  DTPLAN_CHECK(fraction("fabric.nic_efficiency_at_scale", p.fabric.nic_efficiency_at_scale));
  DTPLAN_CHECK(
      fraction("fabric.nic_efficiency_per_doubling", p.fabric.nic_efficiency_per_doubling));
  const ComputeEfficiency& c = p.compute;
  if (!(c.compute_efficiency > 0 && c.compute_efficiency <= 1)) {
    return field_error("compute.compute_efficiency",
                       "must be in (0, 1], got " + number(c.compute_efficiency));
  }
  if (!(c.memory_efficiency > 0 && c.memory_efficiency <= 1)) {
    return field_error("compute.memory_efficiency",
                       "must be in (0, 1], got " + number(c.memory_efficiency));
  }
  DTPLAN_CHECK(non_negative("compute.launch_floor_us", c.launch_floor_us));
  if (!c.gemm.empty()) DTPLAN_CHECK(check_efficiency_table(c.gemm, "compute.gemm_efficiency"));
  if (c.attention) {
    DTPLAN_CHECK(check_efficiency_table(c.attention->forward, "compute.attention.forward"));
    DTPLAN_CHECK(check_efficiency_table(c.attention->backward, "compute.attention.backward"));
  }
  if (!(c.tensor_throughput_factor > 0 && c.tensor_throughput_factor <= 1)) {
    return field_error("compute.tensor_throughput_factor",
                       "must be in (0, 1], got " + number(c.tensor_throughput_factor));
  }
  if (!(c.nccl_overlap_compute_factor > 0 && c.nccl_overlap_compute_factor <= 1)) {
    return field_error("compute.nccl_overlap_compute_factor",
                       "must be in (0, 1], got " + number(c.nccl_overlap_compute_factor));
  }
  if (p.alpha_beta) {
    const AlphaBetaParams& a = *p.alpha_beta;
    DTPLAN_CHECK(non_negative("alpha_beta.launch_us", a.launch_us));
    DTPLAN_CHECK(non_negative("alpha_beta.intra_hop_us", a.intra_hop_us));
    DTPLAN_CHECK(positive("alpha_beta.intra_gbyte_per_s", a.intra_gbyte_per_s));
    DTPLAN_CHECK(non_negative("alpha_beta.inter_hop_us", a.inter_hop_us));
    DTPLAN_CHECK(positive("alpha_beta.nic_gbyte_per_s", a.nic_gbyte_per_s));
  }
  for (std::size_t i = 0; i < p.measured.size(); ++i) {
    std::string where = "measured[" + std::to_string(i) + "]";
    DTPLAN_CHECK(validate_measured(p.measured[i], where, n.gpus_per_node));
    for (std::size_t j = 0; j < i; ++j) {
      if (p.measured[j].collective == p.measured[i].collective &&
          p.measured[j].layout == p.measured[i].layout) {
        return field_error(where, "repeats the table of measured[" + std::to_string(j) +
                                      "] (same collective and layout)");
      }
    }
  }
  return {};
}

core::Result<double> peak_flop_per_s(const HardwareProfile& profile, core::DType dtype) {
  double v = profile.gpu.peak_flop_per_s[static_cast<std::size_t>(dtype)];
  if (v > 0) return v;
  return core::Error::unsupported("hardware '" + profile.name + "': no peak FLOP/s for dtype " +
                                  std::string(core::dtype_name(dtype)) + " (gpu.peak_flop_per_s)");
}

double nic_path_gbyte_per_s(const NodeSpec& node) {
  return std::min(node.nic_gbit_per_s / 8.0, node.pcie_gbyte_per_s);
}

double nic_efficiency(const HardwareProfile& profile, std::int32_t nodes) {
  const FabricEfficiency& f = profile.fabric;
  if (nodes <= 1) return 1.0;
  if (nodes == 2) return f.nic_efficiency;
  double doublings = std::max(0.0, std::log2(nodes / 4.0));
  return f.nic_efficiency_at_scale * std::pow(f.nic_efficiency_per_doubling, doublings);
}

double intra_gbyte_per_s(const NodeSpec& node) {
  if (node.intra_fabric == IntraFabric::kNvSwitch) {
    return node.nvlink_links_per_gpu * node.nvlink_link_gbyte_per_s;
  }
  return node.pcie_gbyte_per_s;
}

std::int32_t local_nics(const NodeSpec& node, std::int32_t local_ranks) {
  std::int64_t num = static_cast<std::int64_t>(local_ranks) * node.nics_per_node;
  std::int64_t k = (num + node.gpus_per_node - 1) / node.gpus_per_node;
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(k, 1, node.nics_per_node));
}

const MeasuredTable* find_measured(const HardwareProfile& profile,
                                   collective::Collective collective, const GroupTopology& layout) {
  for (const MeasuredTable& t : profile.measured) {
    if (t.collective == collective && t.layout == layout) return &t;
  }
  return nullptr;
}

}  // namespace dtplan::cost
