// The exact solver's answer and its proof (answer.h).

#include "solve/exact/answer.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "solve/evaluate.h"
#include "solve/lp/dual_bound.h"
#include "solve/memory/memory_repair.h"

namespace dtplan::solve::detail {
namespace {

// Whether a has a labelling within SolveOptions::relative_gap of a.bound (a test: a is unchanged).
bool near_bound(const Answer& a, const SolveOptions& options) {
  return !a.labels.empty() && within_gap(a.cost_us, a.bound, options);
}

}  // namespace

bool within_gap(double cost, double bound, const SolveOptions& options) {
  return options.relative_gap > 0 && cost - bound <= options.relative_gap * std::fabs(cost);
}

Proof proof_with_gap(const Answer& a, const SolveOptions& options) {
  return a.proof != Proof::kOptimal && near_bound(a, options) ? Proof::kWithinGap : a.proof;
}

Proof settled(const Answer& a, const SolveOptions& options) {
  if (a.proof == Proof::kOptimal || meets_bound(a.cost_us, a.bound)) return Proof::kOptimal;
  return near_bound(a, options) ? Proof::kWithinGap : Proof::kNone;
}

StopReason stop_reason(const Answer& a) {
  switch (a.stop) {
    case RunStatus::kTimeLimit:
      return StopReason::kTimeLimit;
    case RunStatus::kPointLimit:
      return StopReason::kPointLimit;
    case RunStatus::kComplete:
      break;
  }
  return a.proof == Proof::kWithinGap ? StopReason::kGap : StopReason::kNone;
}

void offer(Answer& a, const Problem& problem, std::vector<LabelIndex> labels) {
  const auto ev = evaluate(problem, labels);
  if (ev.ok() && ev->feasible() && ev->total_us < a.cost_us) {
    a.cost_us = ev->total_us;
    a.labels = std::move(labels);
  }
}

void offer_block_copies(Answer& a, const Problem& problem) {
  for (const RepeatGroup& g : problem.repeats) {
    if (a.labels.empty()) return;
    const std::vector<LabelIndex> base = a.labels;
    for (const auto& source : g.blocks) {
      std::vector<LabelIndex> copy = base;
      for (const auto& block : g.blocks) {
        for (std::size_t p = 0; p < block.size(); ++p) copy[block[p]] = base[source[p]];
      }
      offer(a, problem, std::move(copy));
    }
  }
}

void offer_repaired(Answer& a, const Problem& problem, std::vector<LabelIndex> labels,
                    const EngineOptions& eo) {
  if (!meets_memory(problem.memory, labels)) {
    auto fixed = repair_memory(problem, std::move(labels), eo.limits.deadline);
    if (!fixed) return;
    labels = std::move(*fixed);
  }
  offer(a, problem, std::move(labels));
}

Answer solve_plain(Problem problem, const SolveOptions& options, const EngineOptions& eo,
                   SolverStats& stats, double incumbent_us) {
  Answer a;
  a.last = solve_reduced(std::move(problem), options, eo, stats, incumbent_us);
  const EngineSolution& sol = a.last.sol;
  a.bound = std::max(a.last.bound, sol.lower_bound_us);
  a.stop = sol.stop;
  if (sol.found) {
    a.labels = sol.assignment;
    a.cost_us = sol.value_us;
  }
  if (sol.complete) a.proof = sol.found ? Proof::kOptimal : Proof::kInfeasible;
  return a;
}

}  // namespace dtplan::solve::detail
