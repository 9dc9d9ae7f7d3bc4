#include "cost/collective_model.h"

#include <algorithm>
#include <string>

#include "cost/alpha_beta_model.h"
#include "cost/cached_model.h"
#include "cost/measured_model.h"
#include "cost/nccl_model.h"

namespace dtplan::cost {

std::string_view model_kind_name(ModelKind kind) {
  return kind == ModelKind::kNccl ? "nccl" : "alpha-beta";
}

core::Result<ModelKind> parse_model_kind(std::string_view text, std::string_view what) {
  if (text == "nccl") return ModelKind::kNccl;
  if (text == "alpha-beta" || text == "alpha_beta" || text == "alphabeta") {
    return ModelKind::kAlphaBeta;
  }
  return core::Error::bad_input(std::string(what) + ": unknown cost model '" + std::string(text) +
                                "'; expected nccl or alpha-beta");
}

std::unique_ptr<CollectiveModel> make_collective_model(const HardwareProfile& profile,
                                                       const ModelOptions& options) {
  std::unique_ptr<CollectiveModel> model;
  if (options.kind == ModelKind::kNccl) {
    model = std::make_unique<NcclModel>(profile);
  } else {
    model = std::make_unique<AlphaBetaModel>(profile);
  }
  if (options.use_measured && !profile.measured.empty()) {
    model = std::make_unique<MeasuredModel>(profile, std::move(model));
  }
  if (options.cache) model = std::make_unique<CachedModel>(std::move(model));
  return model;
}

core::Status check_topology(const HardwareProfile& profile, const GroupTopology& t) {
  bool consistent = t.ranks >= 1 && t.nodes >= 1 && t.min_ranks_per_node >= 1 &&
                    t.min_ranks_per_node <= t.max_ranks_per_node &&
                    static_cast<std::int64_t>(t.nodes) * t.min_ranks_per_node <= t.ranks &&
                    static_cast<std::int64_t>(t.nodes) * t.max_ranks_per_node >= t.ranks;
  if (!consistent) {
    return core::Error::bad_input("group " + describe(t) +
                                  ": inconsistent counts (need nodes x min <= ranks <= nodes x "
                                  "max, all >= 1)");
  }
  if (t.max_ranks_per_node > profile.node.gpus_per_node) {
    return core::Error::bad_input("group " + describe(t) + ": " +
                                  std::to_string(t.max_ranks_per_node) +
                                  " ranks on one node, but " + profile.name + " has " +
                                  std::to_string(profile.node.gpus_per_node) + " GPUs per node");
  }
  return {};
}

CollectiveCost finish_cost(const HardwareProfile& profile, collective::Collective collective,
                           std::int64_t bytes, const GroupTopology& topology, CollectiveCost raw) {
  if (topology.ranks > 1 && bytes > 0) {
    raw.time_us = std::max(raw.time_us, profile.collective.launch_floor_us) +
                  profile.collective.straggler_skew_us;
  }
  if (raw.time_us > 0) {
    raw.algbw_gbyte_per_s = static_cast<double>(bytes) / (1000.0 * raw.time_us);
    raw.busbw_gbyte_per_s =
        raw.algbw_gbyte_per_s * collective::bus_factor(collective, topology.ranks);
  } else {
    raw.algbw_gbyte_per_s = 0;
    raw.busbw_gbyte_per_s = 0;
  }
  return raw;
}

}  // namespace dtplan::cost
