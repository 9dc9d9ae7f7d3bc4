#pragma once
// The Solver interface shared by the exact solver, the greedy baseline and the CBC ILP backend.
//
//   DTPLAN_TRY(SolverKind kind, parse_solver_kind("exact"));
//   DTPLAN_TRY(auto solver, make_solver(kind));
//   DTPLAN_TRY(Solution s, solver->solve(problem, SolveOptions{}));
//   // s.labels: one per node; s.objective_us == evaluate(problem, s.labels)->total_us;
//   // s.optimal => s.lower_bound_us == s.objective_us (a certificate); otherwise the gap is
//   // s.objective_us - s.lower_bound_us.
//
// Ties: every solver is deterministic (same problem and options, same labels, whatever the thread
// count). Among equal-cost optima the exact solver returns the one its elimination decodes: at
// each node, in reverse elimination order, the lowest label attaining the minimum (the order and
// the reductions are fixed functions of the problem), or, with bound fixing where the LP bound is
// tight, the LP's decoded labelling (dual_bound.h: index order, lowest label on ties, then ICM);
// greedy takes the lowest label among equal choices; CBC (single-threaded) its first optimum.
// Comparisons are exact, except that the exact solver's Lagrangian window filter keeps a 1e-9
// relative slack, which only keeps more candidates (so it never loses the optimum), and a tight
// LP is one whose labelling is within 1e-9 (relative) of its bound.
//
// Errors: kBadInput for an invalid problem (validate()), kUnsupported for an infeasible one
// ("infeasible: memory budget X below minimum Y (memory row 'params', bytes)") or when the time
// limit stops a solver before it finds any feasible labelling, kBackendMissing for "ilp" built
// without CBC.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "solve/problem.h"

namespace dtplan::solve {

// The solvers make_solver builds.
enum class SolverKind : std::uint8_t { kExact, kGreedy, kIlp };

// "exact", "greedy" or "ilp".
std::string_view name(SolverKind kind);

// The kind named `name` (name(kind)); kBadInput for another name ("solver 'exakt' is not one of
// exact, greedy, ilp (did you mean 'exact'?)").
core::Result<SolverKind> parse_solver_kind(std::string_view name);

// Why a solver stopped before it proved its labelling optimal.
enum class StopReason : std::uint8_t {
  kNone,        // it did not stop early: finished (optimal, or the problem infeasible)
  kGap,         // exact: within SolveOptions::relative_gap of its lower bound
  kTimeLimit,   // SolveOptions::time_limit_s (exact, ilp)
  kPointLimit,  // exact: a memory-constrained message reached SolveOptions::max_frontier_points
};

// "" (kNone), "gap", "time_limit" or "point_limit": the spelling plans record.
std::string_view name(StopReason reason);

// The reason named `name` (name(reason)); kBadInput for another name.
core::Result<StopReason> parse_stop_reason(std::string_view name);

enum class RepeatMode : std::uint8_t { kExploit, kUnroll };
enum class SimplifyMode : std::uint8_t { kOn, kOff };
// Exact solver: drop the labels an LP lower bound proves useless before the exact search
// (lp/dual_bound.h; exact/bound_fixing.h solves in windows of growing cost). kAuto runs the LP
// bound first and takes its labelling where the LP is tight (LLaMA3-8B on 8x8); where it is not,
// it fixes labels in windows if the median node keeps more than kBoundFixingLabels labels after
// simplify (3-D meshes: median 54 on LLaMA3 8x8x8, where the exact search alone grows out of
// reach) and otherwise runs the plain exact solve (2-D meshes: median 15 on 8x8, whose repeated
// layers the shared-interior elimination solves quickly), except where a memory-bound stack's LP
// is priced at its short chain's rate (windows then). kOn: windows always; kOff: no LP.
enum class BoundFixing : std::uint8_t { kAuto, kOn, kOff };
inline constexpr std::int32_t kBoundFixingLabels = 24;

struct SolveOptions {
  double time_limit_s = 60;
  // Exact solver: it may stop once the best labelling costs at most this fraction of its cost
  // above the lower bound ((objective - bound) <= relative_gap * |objective|, the MIP solvers'
  // relative gap). 0 proves the optimum; the answer is still marked optimal only when proven.
  double relative_gap = 0;
  int threads = 1;  // results are identical for every thread count
  // Exact solver: the largest elimination message (entries) before branch-and-bound conditions
  // variables, and the most Pareto points one memory-constrained message may hold.
  std::int64_t max_table_entries = std::int64_t{1} << 22;
  std::int64_t max_frontier_points = std::int64_t{1} << 24;
  RepeatMode repeats = RepeatMode::kExploit;
  SimplifyMode simplify = SimplifyMode::kOn;
  BoundFixing bound_fixing = BoundFixing::kAuto;
  bool operator==(const SolveOptions&) const = default;
};

struct SolverStats {
  ProblemSize input;
  ProblemSize reduced;        // after simplify (exact) or the ILP's view
  std::int32_t width = 0;     // largest separator of the elimination order
  std::int64_t messages = 0;  // messages computed by the last elimination
  std::int64_t max_message_entries = 0;
  std::int64_t max_message_points = 0;     // Pareto points (memory rows)
  std::int64_t repeat_blocks = 0;          // blocks solved through a shared interior
  std::int64_t repeat_interior_nodes = 0;  // nodes of those blocks not solved one by one
  std::int64_t search_nodes = 0;           // branch-and-bound nodes
  std::int32_t conditioned = 0;            // branch-and-bound cutset size
  std::int32_t dual_passes = 0;            // LP bound passes (bound fixing), 0 when not run
  std::int32_t priced_passes = 0;          // LP passes with the memory rows priced in (same)
  std::int64_t labels_fixed = 0;           // labels the LP bound removed
  // Memory-bound stacks: two-plan windows solved, and what they took off the incumbent (exact).
  std::int32_t two_plan_windows = 0;
  double two_plan_gain_us = 0;
  // Memory-bound stacks: block problems the block sweep solved, and what it took off (exact).
  std::int32_t block_sweep_solves = 0;
  double block_sweep_gain_us = 0;
  // Long stacks: parts (layers) the block bound solved (exact/stack_phases.h, block_bound.h).
  std::int32_t block_bound_solves = 0;
  std::int64_t ilp_variables = 0;
  std::int64_t ilp_rows = 0;
  // Why the solve stopped short of a proof (kNone when it finished); where more than one limit
  // applies, the frontier point limit, then the time limit, then the gap.
  StopReason stop_reason = StopReason::kNone;
  bool operator==(const SolverStats&) const = default;
};

struct Solution {
  std::vector<LabelIndex> labels;
  double objective_us = 0;    // evaluate(problem, labels)->total_us
  double lower_bound_us = 0;  // every labelling costs at least this much
  bool optimal = false;       // proven: lower_bound_us == objective_us
  double time_s = 0;          // wall-clock
  SolverStats stats;
};

class Solver {
 public:
  virtual ~Solver() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  // @post on success, labels satisfy every constraint of the problem (evaluate() finds no
  // violation) and objective_us is their cost.
  [[nodiscard]] virtual core::Result<Solution> solve(const Problem& problem,
                                                     const SolveOptions& options) const = 0;
};

std::unique_ptr<Solver> make_exact_solver();
std::unique_ptr<Solver> make_greedy_solver();
// make_ilp_solver() is in ilp_solver.h.

// kBackendMissing for kIlp built without CBC.
core::Result<std::unique_ptr<Solver>> make_solver(SolverKind kind);

// What make_solver(kind) would fail with, without building a solver: kBackendMissing for kIlp
// built without CBC.
core::Status check_solver_available(SolverKind kind);

// kBadInput naming `where` unless 0 <= gap < 1 (SolveOptions::relative_gap).
core::Status check_relative_gap(double gap, std::string_view where);

// The names parse_solver_kind accepts, in that order.
std::vector<std::string> solver_names();

}  // namespace dtplan::solve
