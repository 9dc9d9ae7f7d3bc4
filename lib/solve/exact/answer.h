#pragma once
// Internal to the exact solver: its answer on the simplified problem (labels in its label space,
// their cost, a lower bound) and what is proven of it, with the predicates that test that proof
// and the offers that lower the answer's cost.

#include <cstdint>
#include <vector>

#include "solve/engine/search.h"
#include "solve/exact/reduced_solve.h"
#include "solve/problem.h"
#include "solve/solver.h"

namespace dtplan::solve::detail {

// What is proven of an answer's labelling (or of the problem, when it has none).
enum class Proof : std::uint8_t {
  kNone,        // nothing yet: the solve goes on, or stopped at a limit
  kOptimal,     // the labelling costs the lower bound (to meets_bound's slack)
  kWithinGap,   // its cost is within SolveOptions::relative_gap of the bound
  kInfeasible,  // no labelling meets every constraint (only read where there is no labelling)
};

struct Answer {
  std::vector<LabelIndex> labels;  // empty: none found
  double cost_us = kForbidden;
  double bound = -kForbidden;  // lower bound on the optimum
  Proof proof = Proof::kNone;
  RunStatus stop = RunStatus::kComplete;  // the limit that stopped the last exact solve
  ReducedSolve last;                      // the last exact solve (for explain_infeasible())
};

// Whether a labelling costing `cost` is within SolveOptions::relative_gap of `bound`.
bool within_gap(double cost, double bound, const SolveOptions& options);

// a.proof with the gap asked for tested: kWithinGap where a is not proven optimal and has a
// labelling within SolveOptions::relative_gap of a.bound.
Proof proof_with_gap(const Answer& a, const SolveOptions& options);

// What a's labelling is proven to be against a.bound: kOptimal where it meets the bound (or is
// already proven optimal), else kWithinGap where its labelling is within the gap, else kNone.
Proof settled(const Answer& a, const SolveOptions& options);

// The stop reason an answer reports: the limit that stopped its last exact solve, else kGap where
// it stopped within the gap, else none.
StopReason stop_reason(const Answer& a);

// Takes `labels` as a's labelling where they meet every constraint and cost less than a's.
void offer(Answer& a, const Problem& problem, std::vector<LabelIndex> labels);

// Offers a's labelling with every block of a repeat group relabelled like one of its blocks, for
// each group and block in order: the LP decodes alike layers apart, and the best decoded layer
// repeated is often cheaper than the mix (deep stacks: one layer's plan fits every layer).
void offer_block_copies(Answer& a, const Problem& problem);

// Offers `labels`, repaired first where they break a memory row (memory_repair.h).
void offer_repaired(Answer& a, const Problem& problem, std::vector<LabelIndex> labels,
                    const EngineOptions& eo);

// The plain exact solve (solve_reduced) as an Answer; `incumbent_us` as solve_reduced's.
Answer solve_plain(Problem problem, const SolveOptions& options, const EngineOptions& eo,
                   SolverStats& stats, double incumbent_us = kForbidden);

}  // namespace dtplan::solve::detail
