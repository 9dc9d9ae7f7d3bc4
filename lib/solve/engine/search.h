#pragma once
// Internal to lib/solve: exact minimisation of an EngineProblem with a certificate.
//
// Thin problems (the greedy elimination order keeps every message within max_table_entries) are
// solved by one bucket elimination: the optimum, proven. Wider ones by branch-and-bound over a
// cutset: the variables of highest degree are conditioned (fixed label by label) until the rest is
// thin; each search node is bounded by mini-bucket elimination (a relaxation, memory rows ignored),
// children are visited by increasing bound (then label), subtrees whose bound reaches the
// incumbent are pruned, and each leaf is an exact elimination (memory rows honoured). Stopped by
// the time limit, the result carries the best labelling found and the smallest bound among the
// unexplored subtrees, so the gap is certified.
//
// Example: a 3x3 grid of 3-label nodes with max_table_entries = 3 is too wide (its order needs a
// 9-entry message): the highest-degree node (the centre, id 4) is conditioned, each of its 3
// labels leaves a thin ring, and the best leaf is the optimum.

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "solve/engine/elimination.h"
#include "solve/engine/elimination_order.h"
#include "solve/engine/model.h"

namespace dtplan::solve::detail {

struct EngineOptions {
  Limits limits;
  std::int64_t max_table_entries = std::int64_t{1} << 22;
};

struct EngineSolution {
  bool found = false;                    // an assignment satisfying every factor and memory row
  std::vector<std::int32_t> assignment;  // per variable; -1 for variables in no factor
  std::vector<std::int64_t> targets;     // per input factor: chosen frontier point, or -1
  double value_us = std::numeric_limits<double>::infinity();  // Σ factors at `assignment`
  double lower_bound_us = -std::numeric_limits<double>::infinity();
  bool complete = false;  // the search finished: found ? optimal : infeasible
  RunStatus stop = RunStatus::kComplete;
  EliminationStats elimination;   // of the last exact elimination
  std::int32_t width = 0;         // separator size of the leaf elimination order
  std::int64_t search_nodes = 0;  // branch-and-bound nodes bounded
  std::int32_t conditioned = 0;   // cutset size
};

// The elimination order used when nothing needs conditioning: plan_order over every variable that
// appears in a factor (unfinished past `max_work` or `deadline`, see plan_order).
OrderPlan leaf_plan(const EngineProblem& problem,
                    double max_work = std::numeric_limits<double>::infinity(),
                    Clock::time_point deadline = Clock::time_point::max());

// `outside` (from outside_tables() of a scalar run along leaf_plan(problem)) enables the window
// filter; it is used only when no variable is conditioned.
EngineSolution solve_engine(const EngineProblem& problem, const EngineOptions& options,
                            std::shared_ptr<const Outside> outside = nullptr);

}  // namespace dtplan::solve::detail
