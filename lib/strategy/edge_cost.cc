#include "strategy/edge_cost.h"

#include <limits>

#include "solve/problem.h"

namespace dtplan::strategy {

namespace {

std::size_t mix(std::size_t seed, std::uint64_t value) {
  return placement::hash_combine(seed, value);
}

// DTensor's unsupported transitions, decided without planning: only Replicate may become a
// Partial it was not already, and Partial kinds must agree (redistribute.md §2 rows 8-9).
bool cannot_redistribute(const Placements& src, const Placements& dst) {
  for (std::size_t d = 0; d < src.size() && d < dst.size(); ++d) {
    if (!dst[d].is_partial() || src[d] == dst[d]) continue;
    if (!src[d].is_replicate()) return true;
  }
  return false;
}

}  // namespace

bool is_forbidden_pair(const core::Error& error) {
  return error.kind == core::ErrorKind::kUnsupported;
}

std::size_t EdgeCoster::PairHash::operator()(
    const std::pair<placement::TensorSpec, placement::TensorSpec>& p) const {
  return mix(placement::hash_value(p.first), placement::hash_value(p.second));
}

std::size_t EdgeCoster::KeyHash::operator()(const EdgeMatrixKey& k) const {
  std::size_t h = mix(0, static_cast<std::uint32_t>(k.producer));
  h = mix(h, static_cast<std::uint32_t>(k.output));
  h = mix(h, static_cast<std::uint32_t>(k.consumer));
  return mix(h, static_cast<std::uint32_t>(k.slot));
}

EdgeCoster::EdgeCoster(std::unique_ptr<redist::Planner> planner) : planner_(std::move(planner)) {
  const auto sizes = planner_->mesh().sizes();
  sizes_.assign(sizes.begin(), sizes.end());
  options_.planner = redist::PlannerKind::kAuto;
  options_.merge = true;
}

core::Result<placement::TensorSpec> EdgeCoster::spec(const graph::TensorMeta& meta,
                                                     const Placements& placements) const {
  return placement::TensorSpec::make(meta.shape, meta.dtype, placements, sizes_);
}

core::Result<double> EdgeCoster::cost_us(const graph::TensorMeta& meta, const Placements& src,
                                         const Placements& dst) {
  if (src == dst) return 0.0;
  if (cannot_redistribute(src, dst)) return solve::kForbidden;
  DTPLAN_TRY(placement::TensorSpec from, spec(meta, src));
  DTPLAN_TRY(placement::TensorSpec to, spec(meta, dst));
  auto key = std::make_pair(std::move(from), std::move(to));
  if (auto it = costs_.find(key); it != costs_.end()) return it->second;
  auto planned = planner_->plan(key.first, key.second, options_);
  double cost = 0;
  if (planned.ok()) {
    cost = (*planned)->total_cost_us;
  } else if (is_forbidden_pair(planned.error())) {
    cost = solve::kForbidden;
  } else {
    return std::move(planned).error();
  }
  costs_.emplace(std::move(key), cost);
  return cost;
}

core::Result<std::shared_ptr<const redist::RedistPlan>> EdgeCoster::plan(
    const graph::TensorMeta& meta, const Placements& src, const Placements& dst) {
  DTPLAN_TRY(placement::TensorSpec from, spec(meta, src));
  DTPLAN_TRY(placement::TensorSpec to, spec(meta, dst));
  return planner_->plan(from, to, options_);
}

core::Result<EdgeMatrix> EdgeCoster::matrix(const EdgeMatrixKey& key, const graph::TensorMeta& meta,
                                            std::span<const Placements> producer_options,
                                            std::span<const Placements> consumer_inputs) {
  if (auto it = matrices_.find(key); it != matrices_.end()) return it->second;
  auto m = std::make_shared<std::vector<double>>();
  m->reserve(producer_options.size() * consumer_inputs.size());
  for (const Placements& src : producer_options) {
    for (const Placements& dst : consumer_inputs) {
      DTPLAN_TRY(double c, cost_us(meta, src, dst));
      m->push_back(c);
    }
  }
  EdgeMatrix shared = std::move(m);
  matrices_.emplace(key, shared);
  return shared;
}

}  // namespace dtplan::strategy
