#include "support/sweep_support.h"

#include <chrono>
#include <thread>

namespace dtplan::testing {

sweep::MeshEvaluation FakeEvaluator::formula(const sweep::MeshCandidate& c) {
  const std::int64_t dp = sweep::role_degree(c, "dp_replicate") * sweep::role_degree(c, "dp_shard");
  const std::int64_t tp = sweep::role_degree(c, "tp");
  const auto k = static_cast<std::int64_t>(c.shape.size());
  sweep::MeshEvaluation e;
  e.compute_us = 1000;
  e.communication_us = static_cast<double>(40 * tp + 8 * dp);
  e.exposed_us = e.communication_us / 2;
  e.step_time_us = e.compute_us + e.exposed_us + static_cast<double>(5 * (k - 1));
  e.memory_bytes_per_rank = 64 * kGiB / dp;
  e.optimal = true;
  return e;
}

core::Result<sweep::MeshEvaluation> FakeEvaluator::evaluate(const sweep::MeshCandidate& c) const {
  ++calls_;
  if (jitter_us_ > 0) {
    std::int64_t h = 0;
    for (std::int64_t s : c.shape) h = h * 31 + s;
    std::this_thread::sleep_for(std::chrono::microseconds(h % jitter_us_));
  }
  auto it = overrides_.find(c.shape);
  if (it != overrides_.end()) return it->second;
  return formula(c);
}

std::vector<sweep::MeshCandidate> fsdp_tp_candidates(std::int64_t world,
                                                     std::vector<std::int32_t> dims) {
  auto all = sweep::enumerate_candidates({.world = world, .dims = std::move(dims)});
  std::vector<sweep::MeshCandidate> out;
  if (!all.ok()) return out;
  using Names = std::vector<std::string>;
  for (sweep::MeshCandidate& c : *all) {
    if (c.names == Names{"dp_shard"} || c.names == Names{"dp_shard", "tp"} ||
        c.names == Names{"dp_shard", "cp", "tp"}) {
      out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace dtplan::testing
