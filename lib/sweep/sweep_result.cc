#include "sweep/sweep_result.h"

namespace dtplan::sweep {

std::int64_t row_batch(const SweepSetup& setup, const MeshCandidate& c) {
  return c.batch.value_or(setup.batch);
}

std::int64_t row_grad_accum(const SweepSetup& setup, const MeshCandidate& c) {
  return c.grad_accum.value_or(setup.grad_accum);
}

std::string row_checkpoint(const SweepSetup& setup, const MeshCandidate& c) {
  return c.checkpoint ? std::string(core::checkpoint_policy_name(*c.checkpoint)) : setup.checkpoint;
}

}  // namespace dtplan::sweep
