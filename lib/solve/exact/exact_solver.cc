// The exact solver: simplify, then bucket elimination (branch-and-bound where too wide), with
// repeated layers solved once, and memory rows honoured exactly through Pareto frontiers.
//
// Flow: validate -> simplify -> either bound fixing (bound_fixing.h: the LP bound, incumbents and
// windows, where bound_use() says the LP is worth running) or the plain exact solve
// (reduced_solve.h: [memory rows: solve without them first (a labelling that meets them anyway is
// optimal), then the Lagrangian dual for a bound and an incumbent] -> the exact solve (Pareto
// frontiers, filtered by the duality gap)) -> lift -> evaluate on the original.
// Ties: within an elimination, the lowest label attaining the minimum (see elimination.h); the
// elimination order and every reduction are deterministic functions of the problem, so the labels
// do not depend on the thread count.

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

#include "core/units.h"
#include "solve/evaluate.h"
#include "solve/exact/answer.h"
#include "solve/exact/bound_fixing.h"
#include "solve/exact/lp_phase.h"
#include "solve/memory/infeasibility.h"
#include "solve/simplify.h"
#include "solve/solver.h"

namespace dtplan::solve {

namespace {

using detail::Answer;
using detail::BoundUse;
using detail::Clock;
using detail::EngineOptions;
using detail::Proof;

Remap identity_remap(const Problem& problem) {
  Remap r;
  r.original_nodes = static_cast<std::int32_t>(problem.nodes.size());
  for (std::size_t i = 0; i < problem.nodes.size(); ++i) {
    r.original_node.push_back(static_cast<NodeIndex>(i));
    r.original_labels.emplace_back(problem.nodes[i].cost_us.size());
    for (std::size_t l = 0; l < problem.nodes[i].cost_us.size(); ++l) {
      r.original_labels.back()[l] = static_cast<LabelIndex>(l);
    }
  }
  return r;
}

class ExactSolver final : public Solver {
 public:
  [[nodiscard]] std::string_view name() const override { return "exact"; }

  [[nodiscard]] core::Result<Solution> solve(const Problem& problem,
                                             const SolveOptions& options) const override {
    const auto start = Clock::now();
    if (!(options.time_limit_s >= 0) || options.threads < 1 || options.max_table_entries < 1 ||
        options.max_frontier_points < 1) {
      return core::Error::bad_input(
          "solve options: need time_limit_s >= 0, threads >= 1 and "
          "positive table and point limits");
    }
    DTPLAN_CHECK(check_relative_gap(options.relative_gap, "solve options: relative_gap"));
    DTPLAN_CHECK(validate(problem));
    EngineOptions eo;
    const double seconds = std::min(options.time_limit_s, 1e9);
    eo.limits.deadline =
        start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    eo.limits.max_points = options.max_frontier_points;
    eo.limits.threads = options.threads;
    eo.max_table_entries = options.max_table_entries;

    Solution out;
    out.stats.input = problem_size(problem);
    Simplified s;
    if (options.simplify == SimplifyMode::kOn) {
      DTPLAN_TRY(s, simplify(problem, eo.limits.deadline));
    } else {
      s.problem = problem;
      s.remap = identity_remap(problem);
    }
    out.stats.reduced = problem_size(s.problem);
    Answer a;
    if (const BoundUse use = detail::bound_use(options, s.problem); use != BoundUse::kNone) {
      DTPLAN_TRY(a, detail::solve_fixed(std::move(s.problem), options, eo, out.stats, use));
    } else {
      a = detail::solve_plain(std::move(s.problem), options, eo, out.stats);
      a.proof = detail::proof_with_gap(a, options);
    }
    out.stats.stop_reason = detail::stop_reason(a);
    std::vector<LabelIndex> labels;
    if (!a.labels.empty()) {
      DTPLAN_TRY(labels, lift(s.remap, a.labels));
    } else if (a.proof == Proof::kInfeasible) {
      return detail::explain_infeasible(a.last.full, a.last.rows, eo);
    } else {
      // Stopped before any feasible labelling: fall back on the greedy one, if it finds one.
      auto greedy = make_greedy_solver()->solve(problem, options);
      if (!greedy.ok()) {
        return core::Error::unsupported("exact solver stopped (" +
                                        std::string(solve::name(out.stats.stop_reason)) +
                                        ", limit " + core::format_fixed(options.time_limit_s, 3) +
                                        " s) before finding a feasible "
                                        "labelling; lower bound " +
                                        core::format_fixed(a.bound, 3) + " us");
      }
      labels = greedy->labels;
    }
    DTPLAN_TRY(Evaluation ev, evaluate(problem, labels));
    if (!ev.feasible()) {
      return core::Error::internal("exact solver produced a labelling that violates " +
                                   ev.violations[0].message);
    }
    out.labels = std::move(labels);
    out.objective_us = ev.total_us;
    out.optimal = a.proof == Proof::kOptimal;
    // Stopped early, the bound is at least the trivial one (each unary and edge at its least).
    out.lower_bound_us =
        out.optimal ? ev.total_us
                    : std::min(ev.total_us, std::max(a.bound, trivial_lower_bound_us(problem)));
    out.time_s = std::chrono::duration<double>(Clock::now() - start).count();
    return out;
  }
};

}  // namespace

std::unique_ptr<Solver> make_exact_solver() { return std::make_unique<ExactSolver>(); }

}  // namespace dtplan::solve
