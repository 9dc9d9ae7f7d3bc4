#pragma once
// explain(): why one labelling beats another. Splits the objective difference into the unary terms
// of the nodes and the pairwise terms of the edges whose cost differs, largest first, in the way
// AutoParallel's diff_solutions splits compute and communication
// (docs/reference/strategy_selection.md §1.9).
//
// Example (problem.h's two-node example): a = {1, 1} (cost 2), b = {0, 0} (cost 4):
//   delta_us = 4 - 2 = 2 in favour of a; terms: node 'b' 0 -> 3 (+3), node 'a' 2 -> 1 (-1);
//   the edge costs 0 in both, so it is not listed.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/result.h"
#include "solve/evaluate.h"
#include "solve/problem.h"

namespace dtplan::solve {

enum class TermKind : std::uint8_t { kNode, kEdge };

struct TermDifference {
  TermKind kind = TermKind::kNode;
  std::int32_t index = 0;  // node or edge index
  double a_us = 0;         // the term's cost under labelling a
  double b_us = 0;         // ... under labelling b
  double delta_us = 0;  // b_us - a_us: positive where a is cheaper (+inf/-inf/NaN when forbidden)
  bool operator==(const TermDifference&) const = default;
};

struct MemoryDifference {
  std::int32_t row = 0;
  std::int64_t a_bytes = 0;
  std::int64_t b_bytes = 0;
  bool operator==(const MemoryDifference&) const = default;
};

struct Explanation {
  Evaluation a;
  Evaluation b;
  double delta_us = 0;  // b.total_us - a.total_us: positive when a is better
  // Terms whose cost differs, sorted by |delta| descending (forbidden first), then node terms
  // before edge terms, then index: a fixed order for equal magnitudes.
  std::vector<TermDifference> terms;
  std::vector<MemoryDifference> memory;  // rows whose totals differ, in row order
  bool operator==(const Explanation&) const = default;
};

// Compares labellings a and b term by term.
// @pre validate(problem) passed. @post error iff a or b is not a labelling of problem.
core::Result<Explanation> explain(const Problem& problem, std::span<const LabelIndex> a,
                                  std::span<const LabelIndex> b);

// Readable summary: the verdict line, violations of each side, then up to `max_terms` terms:
//   a beats b by 2 us (a 2 us, b 4 us)
//     node 'b': 0 -> 3 us (+3 us, label 1 vs 0)
std::string format_explanation(const Problem& problem, std::span<const LabelIndex> a,
                               std::span<const LabelIndex> b, const Explanation& explanation,
                               std::size_t max_terms);

}  // namespace dtplan::solve
