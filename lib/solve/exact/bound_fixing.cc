// Bound fixing, the exact solver's driver where the LP bound runs (bound_fixing.h). Its phases,
// in order, each block below tagged with its letter:
//   (a) incumbents: the short chain's optimum lengthened (stack_phases.h), then the LP's
//       labelling, repaired where it breaks a memory row, and its layers copied (answer.h);
//   (b) LP bound (lp_phase.h): tight, the incumbent is optimal; with no labelling to measure
//       windows against, or no windows wanted, the plain exact solve, the LP's bound and
//       labelling kept;
//   (c) two-plan window: a memory-bound stack priced at its short chain's rate, where that window
//       is much smaller than the others;
//   (d) block bound: a long stack whose LP stalls well below the incumbent;
//   (e) block sweep: after the block bound, or a memory-bound stack within a few gaps of its bound;
//   (f) windows: label fixing at a growing threshold until a window settles the solve.
// Each phase ends by testing the answer (settled(), proof_with_gap(): predicates that only test;
// the driver records what they find in Answer::proof), and returns once it is settled.

#include "solve/exact/bound_fixing.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "solve/evaluate.h"
#include "solve/exact/stack_phases.h"
#include "solve/memory/memory_price.h"
#include "solve/simplify.h"

namespace dtplan::solve::detail {

namespace {

// (b) The plain exact solve of `problem` after an LP bound `lb` that settled nothing: the LP's
// bound and a's labelling kept (the better one where the solve stops early).
Answer solve_plain_after_lp(Problem problem, Answer a, double lb, const SolveOptions& options,
                            const EngineOptions& eo, SolverStats& stats) {
  Answer plain = solve_plain(std::move(problem), options, eo, stats, a.cost_us);
  plain.bound = std::max(plain.bound, lb);
  if (!a.labels.empty() && (plain.labels.empty() || a.cost_us < plain.cost_us)) {
    plain.labels = std::move(a.labels);
    plain.cost_us = a.cost_us;
  }
  plain.proof = proof_with_gap(plain, options);
  return plain;
}

// (f) Memory-bound (the LP's labelling breaks a row, so its bound ignores what meeting it costs):
// the LP bound with the rows priced in (memory_price.h), where that is higher than d's.
std::optional<DualBound> memory_priced_windows(Problem& problem, const DualBound& d,
                                               const Answer& a, const EngineOptions& eo,
                                               SolverStats& stats) {
  if (problem.memory.empty() || meets_memory(problem.memory, d.labels)) return std::nullopt;
  std::optional<DualBound> priced = memory_priced_bound(problem, d, a.cost_us, eo.limits.deadline);
  if (priced) stats.priced_passes = priced->passes;
  if (priced && !(priced->lower_bound_us > d.lower_bound_us)) priced.reset();
  return priced;
}

// (f) The window's threshold: wd's bound plus `gap`, capped at `stop_at` (the incumbent's cost
// less the gap asked for); a window keeping about as many labels as the last one costs about as
// much, so the last one then (a memory-bound stack whose priced LP is nearly tight: one window
// instead of two).
double window_threshold(const DualBound& wd, double gap, double stop_at) {
  const double threshold = wd.lower_bound_us + gap < stop_at ? wd.lower_bound_us + gap : stop_at;
  if (threshold < stop_at && kept_labels(wd, stop_at) <= kept_labels(wd, threshold) * 101 / 100) {
    return stop_at;
  }
  return threshold;
}

// (f) Label fixing in windows of wd's label bounds, the first `gap` above its bound, x8 per window.
core::Result<Answer> fix_in_windows(Problem& problem, Answer a, const DualBound& wd, double gap,
                                    const SolveOptions& options, const EngineOptions& eo,
                                    SolverStats& stats) {
  const std::int64_t labels = problem_size(problem).labels;
  for (;;) {
    if (Clock::now() > eo.limits.deadline) {  // no window starts after the time limit
      a.stop = RunStatus::kTimeLimit;
      return a;
    }
    // The best labelling so far (the LP's, or a window's costing more than its T) caps T.
    // With a relative gap, T stops short of it: nothing within upper - gap settles the solve.
    const double upper = a.cost_us;
    const double threshold = window_threshold(wd, gap, gap_stop(upper, options.relative_gap));
    const bool last = !(threshold < upper);
    // The window's pins go on the problem itself (it has none: simplified) for the simplify
    // only: no copy of the whole problem per window.
    if (threshold < kForbidden) problem.pins = bound_pins(wd, threshold, problem.repeats);
    auto again = simplify(problem, eo.limits.deadline);
    problem.pins.clear();
    if (again.ok()) {
      stats.labels_fixed = labels - problem_size(again->problem).labels;
      a.last = solve_reduced(std::move(again->problem), options, eo, stats);
      const EngineSolution& sol = a.last.sol;
      if (sol.found) {
        DTPLAN_TRY(std::vector<LabelIndex> lifted, lift(again->remap, sol.assignment));
        offer(a, problem, std::move(lifted));
      }
      if (!sol.complete) {
        a.stop = sol.stop;
        const double within = std::max(a.last.bound, sol.lower_bound_us);
        a.bound = std::max(a.bound, std::min(threshold, within));
        return a;
      }
      const double slack = rounding_slack(threshold);
      if (sol.found && sol.value_us <= threshold + slack) {
        a.proof = Proof::kOptimal;
        return a;
      }
    } else if (again.error().kind != core::ErrorKind::kUnsupported) {
      return again.error();
    }
    // Nothing within T: every labelling costs more than T.
    a.bound = std::max(a.bound, threshold);
    a.proof = proof_with_gap(a, options);
    if (a.proof != Proof::kNone) return a;
    if (last) {
      // The UB labelling lies in its own window; only rounding could get here.
      const bool met = !a.labels.empty() && meets_bound(a.cost_us, a.bound);
      a.proof = met ? Proof::kOptimal : Proof::kNone;
      return a;
    }
    gap *= 8;
  }
}

}  // namespace

core::Result<Answer> solve_fixed(Problem problem, const SolveOptions& options,
                                 const EngineOptions& eo, SolverStats& stats, BoundUse use,
                                 const DualBound* given) {
  Answer a;
  // (a) incumbents: the short chain's optimum, lengthened.
  std::optional<ShortChainStart> start;
  if (given == nullptr && (use == BoundUse::kWindows || !problem.memory.empty())) {
    start = offer_short_chain(a, problem, options, eo);
  }
  // (b) LP bound.
  DualBound computed;
  const bool priced_lp = start && !start->rate.empty();
  if (given == nullptr) computed = lp_bound(problem, a, options, eo, use, start, stats);
  const DualBound& d = given != nullptr ? *given : computed;
  stats.dual_passes = d.passes;
  a.bound = d.lower_bound_us;
  if (!(d.lower_bound_us < kForbidden)) {
    a.proof = Proof::kInfeasible;
    a.last = solve_reduced(std::move(problem), options, eo, stats);
    return a;
  }
  const double lb = d.lower_bound_us;
  // (a) incumbents: the LP's labelling, repaired, and its layers copied.
  if (d.upper_us < kForbidden) {
    offer_repaired(a, problem, d.labels, eo);
    offer_block_copies(a, problem);
  }
  // (b) The LP is tight: the best labelling is optimal (to the filter's rounding_slack).
  if (!a.labels.empty() && meets_bound(a.cost_us, lb)) {
    a.bound = std::min(lb, a.cost_us);
    a.proof = Proof::kOptimal;
    return a;
  }
  a.proof = proof_with_gap(a, options);
  if (a.proof != Proof::kNone) return a;
  // (b) No labelling to measure windows against, or no windows wanted: the whole problem. A
  // memory-bound stack priced at its short chain's rate takes windows whatever its label count:
  // its label bounds include the memory rows, so the windows keep few labels.
  const bool usable = d.upper_us < kForbidden && !a.labels.empty();
  if (!usable || (use != BoundUse::kWindows && !priced_lp)) {
    return solve_plain_after_lp(std::move(problem), std::move(a), lb, options, eo, stats);
  }
  // (f) The windows measure against the Lagrangian bound where that is higher.
  const std::optional<DualBound> priced =
      priced_lp ? std::nullopt : memory_priced_windows(problem, d, a, eo, stats);
  const DualBound& wd = priced ? *priced : d;
  const double wlb = wd.lower_bound_us;
  a.bound = std::max(a.bound, wlb);
  a.proof = settled(a, options);
  if (a.proof != Proof::kNone) return a;
  // (c) two-plan window.
  if (priced_lp) {
    std::vector<Pin> pins = two_plan_pins(*start, a);
    if (kept_labels(wd, a.cost_us) > 2 * pinned_labels(pins)) {
      offer_two_plan_window(a, problem, std::move(pins), options, eo, stats);
      a.proof = settled(a, options);
      if (a.proof != Proof::kNone) return a;
    }
  }
  // (d) block bound.
  const bool block_bound =
      start && !priced_lp && a.cost_us - a.bound > kBlockBoundGap * std::fabs(a.cost_us);
  if (block_bound) {
    raise_block_bound(a, problem, d.messages, options, eo, stats);
    a.proof = settled(a, options);
    if (a.proof != Proof::kNone) return a;
  }
  // (e) block sweep. Within a few gaps of the bound, a memory-bound stack's incumbent may be a
  // block or two of spare bytes away from settling it; further away, the windows first. After
  // the block bound, its layer plans may join better block by block.
  const bool near = a.cost_us - a.bound <= kSweepGaps * options.relative_gap * std::fabs(a.cost_us);
  if (block_bound ||
      (!problem.memory.empty() && !problem.repeats.empty() && options.relative_gap > 0 && near)) {
    const auto enough = [&](double cost) {
      return meets_bound(cost, a.bound) || within_gap(cost, a.bound, options);
    };
    offer_block_sweep(a, problem, options, eo, enough, stats);
    a.proof = settled(a, options);
    if (a.proof != Proof::kNone) return a;
  }
  // (f) windows.
  const double gap =
      std::max(((priced ? a.cost_us : d.upper_us) - wlb) / 64, 1e-6 * (std::fabs(wlb) + 1));
  return fix_in_windows(problem, std::move(a), wd, gap, options, eo, stats);
}

}  // namespace dtplan::solve::detail
