#include "sweep/ranking.h"

#include <algorithm>
#include <tuple>

namespace dtplan::sweep {

namespace {

// 0 usable, 1 over the memory limit, 2 infeasible, 3 failed.
int row_class(const SweepRow& row) {
  if (!row.error.empty()) return 3;
  if (!row.evaluation.feasible) return 2;
  return row.fits_memory ? 0 : 1;
}

// Rules 4 to 6.
auto identity(const MeshCandidate& c) {
  return std::tie(c.shape, c.names, c.batch, c.grad_accum, c.checkpoint, c.parallelize);
}

}  // namespace

double time_per_token(const MeshEvaluation& e) {
  return e.tokens_per_step > 0 ? e.step_time_us / static_cast<double>(e.tokens_per_step)
                               : e.step_time_us;
}

bool ranks_before(const SweepRow& a, const SweepRow& b) {
  const int ca = row_class(a);
  const int cb = row_class(b);
  if (ca != cb) return ca < cb;
  if (ca < 2) {
    const double ta = time_per_token(a.evaluation);
    const double tb = time_per_token(b.evaluation);
    if (ta != tb) return ta < tb;
    if (a.evaluation.memory_bytes_per_rank != b.evaluation.memory_bytes_per_rank) {
      return a.evaluation.memory_bytes_per_rank < b.evaluation.memory_bytes_per_rank;
    }
  }
  return identity(a.mesh) < identity(b.mesh);
}

void rank_rows(std::vector<SweepRow>& rows) {
  std::stable_sort(rows.begin(), rows.end(), ranks_before);
}

}  // namespace dtplan::sweep
