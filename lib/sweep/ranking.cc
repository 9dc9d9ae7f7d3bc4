#include "sweep/ranking.h"

#include <algorithm>

namespace dtplan::sweep {

namespace {

// 0 usable, 1 over the memory limit, 2 infeasible, 3 failed.
int row_class(const SweepRow& row) {
  if (!row.error.empty()) return 3;
  if (!row.evaluation.feasible) return 2;
  return row.fits_memory ? 0 : 1;
}

}  // namespace

bool ranks_before(const SweepRow& a, const SweepRow& b) {
  const int ca = row_class(a);
  const int cb = row_class(b);
  if (ca != cb) return ca < cb;
  if (ca < 2) {
    if (a.evaluation.step_time_us != b.evaluation.step_time_us) {
      return a.evaluation.step_time_us < b.evaluation.step_time_us;
    }
    if (a.evaluation.memory_bytes_per_rank != b.evaluation.memory_bytes_per_rank) {
      return a.evaluation.memory_bytes_per_rank < b.evaluation.memory_bytes_per_rank;
    }
  }
  return a.mesh.shape < b.mesh.shape;
}

void rank_rows(std::vector<SweepRow>& rows) {
  std::stable_sort(rows.begin(), rows.end(), ranks_before);
}

}  // namespace dtplan::sweep
