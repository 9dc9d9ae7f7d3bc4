#pragma once
// The written rule that orders sweep results, best first. It depends only on the rows' values,
// never on the order they were computed in, so a sweep prints the same ranking for any thread
// count. Exact comparisons, no epsilons (evaluations are deterministic, so equal means equal).
//
// Rule, applied in order until two rows differ:
//   1. class: usable (planned, fits the memory limit) < over the memory limit < infeasible <
//      failed (an error evaluating it, SweepRow::error);
//   2. step_time_us ascending (infeasible and failed rows: skipped, they have no step);
//   3. memory_bytes_per_rank ascending (infeasible and failed rows: skipped);
//   4. shape, lexicographic on the dim sizes as integers ((2,2,16) < (2,32) < (4,16) < (64)).
// Candidates are distinct shapes, so the rule is a strict total order on a sweep's rows.
//
//   rows {64: 900 us, 8x8: 800 us, 2x32: 800 us but more memory} -> 8x8, 2x32, 64

#include <vector>

#include "sweep/sweep_result.h"

namespace dtplan::sweep {

// Whether `a` ranks strictly before `b` under the rule above.
bool ranks_before(const SweepRow& a, const SweepRow& b);

// Sorts rows best first.
// @post std::is_sorted(rows, ranks_before); the result does not depend on the input order when
//   shapes are distinct.
void rank_rows(std::vector<SweepRow>& rows);

}  // namespace dtplan::sweep
