#pragma once
// The written rule that orders sweep results, best first. It depends only on the rows' values,
// never on the order they were computed in, so a sweep prints the same ranking for any thread or
// process count. Exact comparisons, no epsilons (evaluations are deterministic, so equal means
// equal).
//
// Rule, applied in order until two rows differ:
//   1. class: usable (planned, fits the memory limit) < over the memory limit < infeasible <
//      failed (an error evaluating it, SweepRow::error);
//   2. step time per token ascending, i.e. training throughput descending (step_time_us /
//      tokens_per_step; step_time_us alone when the model has no token count): with one global
//      batch this is the step time's order (infeasible and failed rows: skipped, they have no
//      step);
//   3. memory_bytes_per_rank ascending (infeasible and failed rows: skipped);
//   4. shape, lexicographic on the dim sizes as integers ((2,2,16) < (2,32) < (4,16) < (64));
//   5. names, lexicographic (dp_shard,cp before dp_shard,tp);
//   6. batch, grad_accum, checkpoint (none, selective_op, full) and plan (optimal, torchtitan),
//      each ascending, unset first.
// Candidates are distinct, so the rule is a strict total order on a sweep's rows.
//
//   rows {64: 900 us, 8x8: 800 us, 2x32: 800 us but more memory} -> 8x8, 2x32, 64

#include <vector>

#include "sweep/sweep_result.h"

namespace dtplan::sweep {

// Microseconds of step per token (the step when tokens_per_step is 0): rule 2's key.
double time_per_token(const MeshEvaluation& e);

// Whether `a` ranks strictly before `b` under the rule above.
bool ranks_before(const SweepRow& a, const SweepRow& b);

// Sorts rows best first.
// @post std::is_sorted(rows, ranks_before); the result does not depend on the input order when
//   candidates are distinct.
void rank_rows(std::vector<SweepRow>& rows);

}  // namespace dtplan::sweep
