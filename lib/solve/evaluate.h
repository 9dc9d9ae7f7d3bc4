#pragma once
// evaluate(): the oracle. Prices a labelling of a Problem term by term and lists every violated
// constraint. It is independent of every solver (tests compare solvers against it), and it is the
// single place where an objective is summed: unary terms in node order, then pairwise terms in edge
// order, so equal labellings always get bit-identical objectives.
//
// Example (problem.h's two-node example, labels {0, 0}):
//   unary_us = 1 + 3 = 4, pairwise_us = 0, total_us = 4, no violations.
// Labels {0, 1}: total_us = 1 + 0 + 5 = 6.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/result.h"
#include "solve/problem.h"

namespace dtplan::solve {

enum class ViolationKind : std::uint8_t {
  kForbiddenLabel,  // unary cost +inf
  kForbiddenPair,   // edge cost +inf
  kPin,             // label outside the pin's set
  kFollower,        // label != label_map[leader label] (or the map says -1)
  kMemoryLow,       // row total below low_bytes
  kMemoryHigh,      // row total above high_bytes
};

// "forbidden_label", "forbidden_pair", "pin", "follower", "memory_low", "memory_high".
std::string_view violation_name(ViolationKind kind);

struct Violation {
  ViolationKind kind = ViolationKind::kForbiddenPair;
  std::int32_t index = 0;  // node, edge, pin, follower or memory row index, by kind
  std::string message;     // names the nodes and labels involved
  bool operator==(const Violation&) const = default;
};

struct Evaluation {
  double total_us = 0;  // unary_us + pairwise_us (+inf when forbidden)
  double unary_us = 0;
  double pairwise_us = 0;
  std::vector<double> node_us;             // per node
  std::vector<double> edge_us;             // per edge
  std::vector<std::int64_t> memory_bytes;  // per memory row
  std::vector<Violation> violations;       // in kind order, then index order

  [[nodiscard]] bool feasible() const { return violations.empty(); }
  bool operator==(const Evaluation&) const = default;
};

// Prices `labels` (one per node) on `problem`.
// @pre validate(problem) passed.
// @post error (kBadInput) iff labels.size() != nodes or a label is out of range.
core::Result<Evaluation> evaluate(const Problem& problem, std::span<const LabelIndex> labels);

// The objective alone, summed exactly as evaluate() sums it. @pre labels valid for problem.
double objective_us(const Problem& problem, std::span<const LabelIndex> labels);

// A lower bound valid for every labelling: Σ_v min U_v + Σ_e min B_e (constraints ignored).
double trivial_lower_bound_us(const Problem& problem);

}  // namespace dtplan::solve
