#pragma once
// A deterministic fake MeshEvaluator for sweep tests, with figures simple enough to rank by hand:
// for a mesh with data-parallel degree dp (dp_replicate x dp_shard) and tp degree tp (1 when a
// role is absent), k dims,
//   compute_us        = 1000
//   communication_us  = 40 tp + 8 dp
//   exposed_us        = communication_us / 2
//   step_time_us      = compute_us + exposed_us + 5 (k - 1)
//   memory            = 64 GiB / dp
// Overrides replace the figures (or return an error) for chosen shapes. A delay that depends on
// the shape reorders completion across threads, to show the ranking does not depend on it.

#include <atomic>
#include <cstdint>
#include <map>
#include <vector>

#include "core/result.h"
#include "sweep/evaluator.h"
#include "sweep/mesh_candidates.h"

namespace dtplan::testing {

class FakeEvaluator : public sweep::MeshEvaluator {
 public:
  // The formula above.
  static sweep::MeshEvaluation formula(const sweep::MeshCandidate& c);

  core::Result<sweep::MeshEvaluation> evaluate(const sweep::MeshCandidate& c) const override;
  std::string description() const override { return "fake (test formula)"; }

  // Replaces the result for one shape.
  void set(std::vector<std::int64_t> shape, core::Result<sweep::MeshEvaluation> result) {
    overrides_.insert_or_assign(std::move(shape), std::move(result));
  }
  // Sleeps (shape-dependent, up to max_us) before answering.
  void set_jitter(std::int64_t max_us) { jitter_us_ = max_us; }
  std::int64_t calls() const { return calls_.load(); }

 private:
  std::map<std::vector<std::int64_t>, core::Result<sweep::MeshEvaluation>> overrides_;
  std::int64_t jitter_us_ = 0;
  mutable std::atomic<std::int64_t> calls_{0};
};

// The candidates of `world` over `dims` named (dp_shard), (dp_shard, tp) or (dp_shard, cp, tp),
// each dim >= 2, no node rule: the meshes FSDP x TP sweeps try (every dim count's shapes in
// lexicographic order); empty when there are none.
std::vector<sweep::MeshCandidate> fsdp_tp_candidates(std::int64_t world,
                                                     std::vector<std::int32_t> dims = {1, 2, 3});

inline constexpr std::int64_t kGiB = std::int64_t{1} << 30;

}  // namespace dtplan::testing
