#pragma once
// MeshEvaluator: what the sweep asks of each mesh candidate, the seam between the sweep engine
// (enumeration, threads, ranking, reports) and the planning pipeline. The default implementation
// plans the model on the candidate with the exact solver and simulates a training step
// (plan_evaluator.h); tests use a deterministic fake.
//
//   class Fake : public MeshEvaluator {
//     core::Result<MeshEvaluation> evaluate(const MeshCandidate& c) const override {
//       return MeshEvaluation{.step_time_us = 100.0 * c.shape.size(), ...};
//     }
//   };
//
// Contract: evaluate() is called concurrently from several threads on one evaluator, so it must
// be safe to call concurrently (const, no shared mutable state without a lock) and deterministic
// (the same candidate gives the same evaluation whatever the thread or the order of calls).
// An infeasible candidate (no plan fits, a shape the model cannot be sharded on) is either an
// evaluation with feasible = false and a note, or an error of kind kUnsupported (the sweep turns
// it into such a row); any other error stops the sweep.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"
#include "sweep/mesh_candidates.h"

namespace dtplan::sweep {

// One training step of the model on one mesh, per rank. Times in microseconds.
//   step_time_us = compute_us + exposed_us + other_us()
// where exposed_us is the communication not hidden behind compute (all of it when nothing
// overlaps) and other_us() the rest of the step (local redistribution copies, waits).
struct MeshEvaluation {
  double step_time_us = 0;
  double compute_us = 0;
  double communication_us = 0;             // every collective, hidden or not
  double exposed_us = 0;                   // <= communication_us
  std::int64_t memory_bytes_per_rank = 0;  // peak
  // Training throughput as torchtitan reports it (sim/throughput.h); 0 when the model has no
  // token input (not a language model) or the hardware no bf16 peak.
  std::int64_t tokens_per_step = 0;  // global batch x sequence
  double tokens_per_s_per_gpu = 0;
  double mfu = 0;  // a fraction
  bool feasible = true;
  bool optimal = false;  // the solver proved its plan optimal
  std::string note{};    // why infeasible, or what the figure rests on; "" when nothing to say

  // step_time_us - compute_us - exposed_us, never below 0.
  [[nodiscard]] double other_us() const;

  bool operator==(const MeshEvaluation&) const = default;
};

class MeshEvaluator {
 public:
  virtual ~MeshEvaluator() = default;
  // Plans and prices one candidate (see the contract above).
  [[nodiscard]] virtual core::Result<MeshEvaluation> evaluate(
      const MeshCandidate& candidate) const = 0;
  // What the figures come from, e.g. "exact solver + step simulator".
  [[nodiscard]] virtual std::string description() const = 0;
};

// Checks an evaluation's numbers: finite, non-negative, compute and exposed within the step,
// exposed within communication, memory >= 0, throughput >= 0. Errors are kInternal naming `what`
// (the mesh) and the field: an evaluator that breaks them has a bug.
core::Status check_evaluation(const MeshEvaluation& e, std::string_view what);

}  // namespace dtplan::sweep
