#include "sweep/evaluator.h"

#include <algorithm>
#include <cmath>

namespace dtplan::sweep {

double MeshEvaluation::other_us() const {
  return std::max(0.0, step_time_us - compute_us - exposed_us);
}

core::Status check_evaluation(const MeshEvaluation& e, std::string_view what) {
  const auto fail = [&](const std::string& reason) -> core::Status {
    return core::Error::internal(std::string(what) + ": evaluator returned " + reason);
  };
  const std::pair<const char*, double> times[] = {{"step_time_us", e.step_time_us},
                                                  {"compute_us", e.compute_us},
                                                  {"communication_us", e.communication_us},
                                                  {"exposed_us", e.exposed_us},
                                                  {"tokens_per_s_per_gpu", e.tokens_per_s_per_gpu},
                                                  {"mfu", e.mfu}};
  for (const auto& [name, value] : times) {
    if (!std::isfinite(value) || value < 0) {
      return fail(std::string(name) + " = " + std::to_string(value) +
                  " (expected finite and >= 0)");
    }
  }
  if (e.memory_bytes_per_rank < 0) {
    return fail("memory_bytes_per_rank = " + std::to_string(e.memory_bytes_per_rank));
  }
  if (e.tokens_per_step < 0) {
    return fail("tokens_per_step = " + std::to_string(e.tokens_per_step));
  }
  if (!e.feasible) return {};
  if (e.compute_us > e.step_time_us) return fail("compute_us above step_time_us");
  if (e.exposed_us > e.step_time_us) return fail("exposed_us above step_time_us");
  if (e.exposed_us > e.communication_us) return fail("exposed_us above communication_us");
  return {};
}

}  // namespace dtplan::sweep
