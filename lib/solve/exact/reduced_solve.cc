// The exact solve of a simplified problem (reduced_solve.h).

#include "solve/exact/reduced_solve.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "solve/engine/repeated.h"
#include "solve/evaluate.h"
#include "solve/lp/dual_bound.h"
#include "solve/memory/lagrange.h"
#include "solve/memory/window.h"

namespace dtplan::solve::detail {

namespace {

// Solves one variant of the problem (relaxed, Lagrangian or memory-aware), through the shared
// repeat shapes; `outside` enables the window filter.
EngineSolution solve_problem(const EngineProblem& problem, const std::vector<GroupShape>& shapes,
                             const EngineOptions& eo, SolverStats& stats,
                             const OutsideSet* outside = nullptr) {
  EngineSolution sol;
  if (!shapes.empty()) {
    const Decomposition d =
        decompose(shapes, problem, eo, outside != nullptr ? &outside->groups : nullptr);
    if (!d.complete) {
      sol.stop = d.stop;
      return sol;
    }
    sol = solve_engine(d.global, eo, outside != nullptr ? outside->global : nullptr);
    if (sol.found && !decode_blocks(d, sol).ok()) sol.found = false;
    stats.repeat_blocks = d.blocks;
    stats.repeat_interior_nodes = d.interior_nodes;
  } else {
    sol = solve_engine(problem, eo, outside != nullptr ? outside->global : nullptr);
  }
  stats.width = std::max(stats.width, sol.width);
  stats.messages = sol.elimination.messages;
  stats.max_message_entries =
      std::max(stats.max_message_entries, sol.elimination.max_message_entries);
  stats.max_message_points = std::max(stats.max_message_points, sol.elimination.max_message_points);
  stats.search_nodes += sol.search_nodes;
  stats.conditioned = std::max(stats.conditioned, sol.conditioned);
  return sol;
}

// When to stop a solve short of its proof: a labelling costing at most `incumbent_us` is known
// (found elsewhere), and the caller is content within SolveOptions::relative_gap of the bound.
struct GapStop {
  double incumbent_us = kForbidden;
  double relative_gap = 0;
  [[nodiscard]] bool reached(double best_us, double bound) const {
    const double upper = std::min(incumbent_us, best_us);
    return relative_gap > 0 && upper < kForbidden &&
           upper - bound <= relative_gap * std::fabs(upper);
  }
};

// The memory-aware solve once the relaxation violated a row: the Lagrangian dual gives a bound,
// multipliers and usually an incumbent; then exact solves over growing windows
// L(μ) <= cost + μ·bytes <= threshold prove the optimum (see lagrange.h and window.h): the best
// labelling found in a window is optimal as soon as its cost is at most threshold - offset, since
// every labelling outside the window costs more than that (so the optimum costs at least the less
// of the two: a bound, raised window by window). Stops early, incomplete, once `stop` is reached.
EngineSolution solve_with_memory(const EngineProblem& full, const std::vector<GroupShape>& shapes,
                                 const EngineOptions& eo, SolverStats& stats,
                                 const EngineSolution& relaxed, double& bound,
                                 const GapStop& stop) {
  auto scalar = [&](const EngineProblem& p) { return solve_problem(p, shapes, eo, stats); };
  const DualResult dual = lagrangian_dual(full, scalar, eo.limits.deadline, &relaxed);
  bound = std::max(bound, dual.lower_bound_us);
  EngineSolution best;
  if (dual.found) {
    best.found = true;
    best.assignment = dual.labels;
    best.value_us = dual.cost_us;
  }
  if (stop.reached(best.value_us, bound)) return best;  // incomplete: within the gap
  EngineProblem filtered = full;
  filtered.memory.multiplier = dual.multiplier;
  const double offset = multiplier_offset(full.memory, dual.multiplier);
  const auto outside = outside_set(lagrangian_problem(full, dual.multiplier), shapes, eo);
  if (!outside) {
    // Too wide for the backward pass: one solve with the weaker per-entry gap filter.
    if (dual.found) {
      filtered.memory.max_reduced_cost =
          dual.cost_us - dual.lower_bound_us + rounding_slack(dual.cost_us);
    }
    EngineSolution sol = solve_problem(filtered, shapes, eo, stats);
    if (best.found && (!sol.found || best.value_us < sol.value_us)) {
      best.complete = sol.complete;
      best.stop = sol.stop;
      return best;
    }
    return sol;
  }
  const double least = outside->lagrangian_min_us;
  double window =
      best.found ? (best.value_us + offset - least) / 16 : 1e-4 * (std::fabs(least) + 1);
  for (;;) {
    double threshold = least + window;
    const bool last = best.found && threshold >= best.value_us + offset;
    if (last) threshold = best.value_us + offset;
    // The slack keeps every point a rounding error could misjudge: the search stays exact.
    filtered.memory.threshold = threshold + rounding_slack(threshold);
    EngineSolution sol = solve_problem(filtered, shapes, eo, stats, &*outside);
    if (!sol.complete) {  // its bound holds for the window only: the caller keeps the dual's
      best.complete = false;
      best.stop = sol.stop;
      return best;
    }
    if (sol.found && (!best.found || sol.value_us < best.value_us)) {
      best.found = true;
      best.assignment = std::move(sol.assignment);
      best.value_us = sol.value_us;
    }
    if (last || (best.found && best.value_us <= threshold - offset)) {
      best.complete = true;
      return best;
    }
    bound = std::max(bound, std::min(threshold - offset, best.value_us));
    if (stop.reached(best.value_us, bound)) return best;
    if (!best.found && std::isinf(window)) {
      best.complete = true;  // nothing fits the memory rows at all
      return best;
    }
    // Grow the window: gently below a known incumbent, fast without one.
    const double grown = window * (best.found ? 4 : 16);
    window = grown > 1e300 ? std::numeric_limits<double>::infinity() : grown;
  }
}

}  // namespace

ReducedSolve solve_reduced(Problem problem, const SolveOptions& options, const EngineOptions& eo,
                           SolverStats& stats, double incumbent_us) {
  ReducedSolve r;
  r.rows = problem.memory;
  const std::vector<RepeatGroup> repeats = problem.repeats;
  r.full = build_engine_problem(std::move(problem));
  const std::vector<GroupShape> shapes = options.repeats == RepeatMode::kExploit
                                             ? analyse_repeats(repeats, r.full, eo)
                                             : std::vector<GroupShape>{};
  if (r.rows.empty()) {
    r.sol = solve_problem(r.full, shapes, eo, stats);
    return r;
  }
  r.sol = solve_problem(without_memory(r.full), shapes, eo, stats);
  r.bound = r.sol.lower_bound_us;
  if (r.sol.found && !meets_memory(r.rows, r.sol.assignment)) {
    if (r.sol.complete) {
      const EngineSolution relaxed = std::move(r.sol);
      r.sol = solve_with_memory(r.full, shapes, eo, stats, relaxed, r.bound,
                                GapStop{incumbent_us, options.relative_gap});
    } else {
      r.sol.found = false;  // stopped: the relaxed labelling is no answer
    }
  }
  return r;
}

}  // namespace dtplan::solve::detail
