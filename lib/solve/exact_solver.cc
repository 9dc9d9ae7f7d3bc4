// The exact solver: simplify, then bucket elimination (branch-and-bound where too wide), with
// repeated layers solved once, and memory rows honoured exactly through Pareto frontiers.
//
// Flow: validate -> simplify -> [memory rows: solve without them first (a labelling that meets
// them anyway is optimal), then the Lagrangian dual for a bound and an incumbent] -> the exact
// solve (Pareto frontiers, filtered by the duality gap) -> lift -> evaluate on the original.
// Ties: within an elimination, the lowest label attaining the minimum (see elimination.h); the
// elimination order and every reduction are deterministic functions of the problem, so the labels
// do not depend on the thread count.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "core/units.h"
#include "solve/evaluate.h"
#include "solve/lagrange.h"
#include "solve/repeated.h"
#include "solve/search.h"
#include "solve/simplify.h"
#include "solve/solver.h"

namespace dtplan::solve {

namespace {

using detail::Clock;
using detail::EngineOptions;
using detail::EngineSolution;

EngineSolution solve_problem(const detail::EngineProblem& full,
                             const std::vector<RepeatGroup>& repeats, const EngineOptions& eo,
                             SolverStats& stats, RepeatMode mode) {
  EngineSolution sol;
  bool decomposed = false;
  if (mode == RepeatMode::kExploit && !repeats.empty()) {
    const detail::Decomposition d = detail::decompose(repeats, full, eo);
    if (!d.groups.empty()) {
      decomposed = true;
      sol = detail::solve_engine(d.global, eo);
      if (sol.found && !detail::decode_blocks(d, sol).ok()) sol.found = false;
      stats.repeat_blocks = d.blocks;
      stats.repeat_interior_nodes = d.interior_nodes;
    }
  }
  if (!decomposed) sol = detail::solve_engine(full, eo);
  stats.width = std::max(stats.width, sol.width);
  stats.messages = sol.elimination.messages;
  stats.max_message_entries = std::max(stats.max_message_entries, sol.elimination.max_message_entries);
  stats.max_message_points = std::max(stats.max_message_points, sol.elimination.max_message_points);
  stats.search_nodes += sol.search_nodes;
  stats.conditioned = std::max(stats.conditioned, sol.conditioned);
  return sol;
}

// The fewest (sign +1) or most (sign -1) bytes memory row r can hold without a forbidden label or
// pair: the same factor graph with every cost replaced by 0 (+inf kept) and row r's bytes as unary
// costs.
double extreme_bytes(const detail::EngineProblem& full, std::size_t r, double sign,
                     const EngineOptions& eo) {
  detail::EngineProblem p;
  p.domains = full.domains;
  p.unary = full.unary;
  std::vector<char> is_unary(full.factors.size(), 0);
  for (std::int32_t id : full.unary) is_unary[id] = 1;
  const std::size_t rows = full.memory.rows();
  for (std::size_t id = 0; id < full.factors.size(); ++id) {
    const detail::Table& in = *full.factors[id].table;
    auto t = std::make_shared<detail::Table>();
    t->dims = in.dims;
    t->entries = in.entries;
    t->cost.resize(static_cast<std::size_t>(in.entries));
    for (std::int64_t e = 0; e < in.entries; ++e) {
      const bool allowed = in.min_cost(e) != kForbidden;
      double c = allowed ? 0.0 : kForbidden;
      if (allowed && is_unary[id] && in.frontier) {
        c = sign * static_cast<double>(in.point_mem[in.begin[e] * rows + r]);
      }
      t->cost[static_cast<std::size_t>(e)] = c;
    }
    p.factors.push_back({std::move(t), full.factors[id].scope});
  }
  SolverStats ignored;
  const EngineSolution s = solve_problem(p, {}, eo, ignored, RepeatMode::kUnroll);
  return s.found && s.complete ? sign * s.value_us : std::nan("");
}

core::Error infeasible(const detail::EngineProblem& full, const std::vector<MemoryRow>& rows,
                       const EngineOptions& eo) {
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const MemoryRow& row = rows[r];
    const std::string where = " (memory row '" + row.name + "', bytes)";
    const double least = extreme_bytes(full, r, 1, eo);
    if (least > static_cast<double>(row.high_bytes)) {
      return core::Error::unsupported("infeasible: memory budget " + std::to_string(row.high_bytes) +
                                      " below minimum " + core::format_fixed(least, 0) + where);
    }
    const double most = extreme_bytes(full, r, -1, eo);
    if (most < static_cast<double>(row.low_bytes)) {
      return core::Error::unsupported("infeasible: memory floor " + std::to_string(row.low_bytes) +
                                      " above maximum " + core::format_fixed(most, 0) + where);
    }
  }
  if (!rows.empty()) {
    return core::Error::unsupported(
        "infeasible: the memory rows cannot all be met together with the forbidden labels and "
        "pairs");
  }
  return core::Error::unsupported("infeasible: every labelling uses a forbidden label or pair");
}

bool meets_memory(const std::vector<MemoryRow>& rows, const std::vector<std::int32_t>& labels) {
  for (const MemoryRow& row : rows) {
    std::int64_t total = 0;
    for (const MemoryTerm& t : row.terms) total += t.bytes[labels[t.node]];
    if (total < row.low_bytes || total > row.high_bytes) return false;
  }
  return true;
}

class ExactSolver final : public Solver {
 public:
  [[nodiscard]] std::string_view name() const override { return "exact"; }

  [[nodiscard]] core::Result<Solution> solve(const Problem& problem,
                                             const SolveOptions& options) const override {
    const auto start = Clock::now();
    if (!(options.time_limit_s >= 0) || options.threads < 1 || options.max_table_entries < 1 ||
        options.max_frontier_points < 1) {
      return core::Error::bad_input("solve options: need time_limit_s >= 0, threads >= 1 and "
                                    "positive table and point limits");
    }
    DTPLAN_CHECK(validate(problem));
    EngineOptions eo;
    const double seconds = std::min(options.time_limit_s, 1e9);
    eo.limits.deadline = start + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(seconds));
    eo.limits.max_points = options.max_frontier_points;
    eo.limits.threads = options.threads;
    eo.max_table_entries = options.max_table_entries;

    Solution out;
    out.stats.input = problem_size(problem);
    Simplified s;
    if (options.simplify == SimplifyMode::kOn) {
      DTPLAN_TRY(s, simplify(problem));
    } else {
      s.problem = problem;
      s.remap.original_nodes = static_cast<std::int32_t>(problem.nodes.size());
      for (std::size_t i = 0; i < problem.nodes.size(); ++i) {
        s.remap.original_node.push_back(static_cast<NodeIndex>(i));
        s.remap.original_labels.emplace_back(problem.nodes[i].cost_us.size());
        for (std::size_t l = 0; l < problem.nodes[i].cost_us.size(); ++l) {
          s.remap.original_labels.back()[l] = static_cast<LabelIndex>(l);
        }
      }
    }
    out.stats.reduced = problem_size(s.problem);
    const std::vector<MemoryRow> rows = s.problem.memory;
    const std::vector<RepeatGroup> repeats = s.problem.repeats;
    const detail::EngineProblem full = detail::build_engine_problem(std::move(s.problem));

    // Memory rows: the relaxation without them first (optimal when it happens to meet them),
    // then the Lagrangian dual (a bound and incumbents), then the exact solve filtered by the gap.
    auto engine_solve = [&](const detail::EngineProblem& p) {
      return solve_problem(p, repeats, eo, out.stats, options.repeats);
    };
    double bound = -kForbidden;
    EngineSolution sol;
    detail::DualResult dual;
    bool done = false;
    if (!rows.empty()) {
      sol = engine_solve(detail::without_memory(full));
      bound = sol.lower_bound_us;
      done = sol.complete && (!sol.found || meets_memory(rows, sol.assignment));
      if (!done && sol.complete) {
        dual = detail::lagrangian_dual(full, engine_solve, eo.limits.deadline);
        bound = std::max(bound, dual.lower_bound_us);
      }
    }
    if (!done) {
      detail::EngineProblem filtered = full;
      if (dual.found) {
        filtered.memory.multiplier = dual.multiplier;
        const double gap = dual.cost_us - dual.lower_bound_us;
        // A relative slack keeps every point a rounding error could misjudge (exactness first).
        filtered.memory.max_reduced_cost =
            std::max(gap, 0.0) + 1e-9 * (std::fabs(dual.cost_us) + std::fabs(dual.lower_bound_us) + 1);
      }
      sol = engine_solve(filtered);
      if (dual.found && (!sol.found || dual.cost_us < sol.value_us)) {
        // The filter keeps every labelling cheaper than the incumbent: none found, or none better,
        // proves the incumbent optimal when the search completed.
        sol.found = true;
        sol.assignment = dual.labels;
        sol.value_us = dual.cost_us;
      }
    }
    if (sol.stop == detail::RunStatus::kTimeLimit) out.stats.stop_reason = "time_limit";
    if (sol.stop == detail::RunStatus::kPointLimit) out.stats.stop_reason = "point_limit";
    std::vector<LabelIndex> labels;
    if (sol.found) {
      DTPLAN_TRY(labels, lift(s.remap, sol.assignment));
    } else if (sol.complete) {
      return infeasible(full, rows, eo);
    } else {
      // Stopped before any feasible labelling: fall back on the greedy one, if it finds one.
      auto greedy = make_greedy_solver()->solve(problem, options);
      if (!greedy.ok()) {
        return core::Error::unsupported(
            "exact solver stopped (" + out.stats.stop_reason + ", limit " +
            core::format_fixed(options.time_limit_s, 3) + " s) before finding a feasible "
            "labelling; lower bound " + core::format_fixed(std::max(bound, sol.lower_bound_us), 3) +
            " us");
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
    out.optimal = sol.found && sol.complete;
    out.lower_bound_us =
        out.optimal ? ev.total_us : std::min(ev.total_us, std::max(bound, sol.lower_bound_us));
    out.time_s = std::chrono::duration<double>(Clock::now() - start).count();
    return out;
  }
};

}  // namespace

std::unique_ptr<Solver> make_exact_solver() { return std::make_unique<ExactSolver>(); }

}  // namespace dtplan::solve
