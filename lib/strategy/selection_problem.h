#pragma once
// export_problem(): the whole strategy-selection problem of a graph as a domain-free
// solve::Problem (docs/reference/strategy_selection.md §1.6: min Σ_v U_v(y_v) + Σ_(u→v,slot) B(y_u,
// y_v)), and map_solution() taking a labelling back to one strategy per graph node.
//
//   problem node  every graph node but the output node; labels = its strategies in enumeration
//                 order; unary cost = the strategy's compute time (µs)
//   edge          every input slot of every node (two slots fed by one producer are two edges,
//                 `x * x` included): [producer option][consumer strategy] = the redistribution
//                 cost (edge_cost.h; +inf where DTensor cannot)
//   follower      FollowerMode::kFree (default, AutoParallel's formulation): none; kTie: a node
//                 whose strategies follow one producer option each (views, casts, reductions,
//                 ..., OpStrategy::follows_slot) takes the strategy derived from its producer's
//                 choice (Alpa's followers: no redistribution between a producer and its view)
//   ties          constraints.h ties: a follower (map by equal output-0 placements; leader
//                 options the follower lacks are forbidden, AutoParallel #420), or, when the
//                 tied node already follows its producer, an edge (slot = its input count + k)
//                 that is 0 on equal placements and +inf elsewhere
//   pins          the strategies whose output 0 has the pinned placements, or the one pinned
//                 strategy index; with LabelScope::kPinned the other strategies are no labels,
//                 nor (LabelPruning::kBound) those no optimal plan takes
//   memory row    "parameters" (default: Σ parameter bytes <= Σ of each parameter's minimum over
//                 its allowed strategies, AutoParallel's default budget; pinned parameters are
//                 left out, #475) or "memory" (with a limit: parameters + gradients + optimizer
//                 state + activations <= the limit, memory_model.h)
//   repeats       each graph repeat group: one block per layer, the layer's nodes in graph order
//   training      with ExportOptions::training, unary costs and edge matrices count every run of
//                 the node / redistribution in one step (recomputation, microbatches, gradient
//                 reductions once under GradSync::kLastMicrobatch)
// No transition tie-breaker (AutoParallel's +1 µs per placement change) is added: every
// placement change already has a positive price (local chunks and partitions are priced as
// memory traffic), so the objective is exactly compute + redistribution time.
//
//   auto sp = export_problem(graph, strategies, constraints, coster).value();
//   auto sol = solve::make_exact_solver()->solve(sp.problem, {}).value();
//   auto choice = map_solution(sp, sol.labels).value();  // strategy per graph node

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/result.h"
#include "graph/graph.h"
#include "solve/problem.h"
#include "strategy/constraints.h"
#include "strategy/edge_cost.h"
#include "strategy/graph_strategies.h"
#include "strategy/memory_model.h"

namespace dtplan::strategy {

enum class FollowerMode : std::uint8_t { kTie, kFree };

// Which strategies of a node become its labels.
enum class LabelScope : std::uint8_t {
  kAll,  // every strategy (explain prices every alternative of an op)
  // Only those its pins allow (at a repeat position: those some block's pins allow, so the
  // blocks stay alike), so edges price only pairs a plan can take. The exact solver removes the
  // others first anyway (simplify.h), so its answer is the same; the greedy solver's trivial
  // bound would not be.
  kPinned,
};

// Whether export drops, before pricing edges, the strategies a bound proves no optimal plan takes.
enum class LabelPruning : std::uint8_t {
  kNone,
  // With LabelScope::kPinned and FollowerMode::kFree: prune_by_bound (bound_pruning.h) on the
  // pinned problem; the exact solver's optima are unchanged, its problem and its edges smaller.
  kBound,
};

struct ExportOptions {
  FollowerMode followers = FollowerMode::kFree;
  // The step priced: each node's cost and each edge's matrix are multiplied by their runs per
  // step (step_schedule.h, plan/step_runs.h); the memory terms are one microbatch's.
  core::TrainingOptions training{};
  LabelScope labels = LabelScope::kAll;
  LabelPruning pruning = LabelPruning::kNone;
  bool operator==(const ExportOptions&) const = default;
};

struct SelectionProblem {
  solve::Problem problem;
  std::vector<graph::NodeId> graph_node;   // per problem node
  std::vector<std::int32_t> problem_node;  // per graph node; -1 outside the problem
  // LabelScope::kPinned: per problem node, the strategy of each label, ascending; an empty entry
  // (or an empty list): label l is strategy l.
  std::vector<std::vector<std::int32_t>> label_strategy;
  MemoryTerms memory;
  // The memory row's smallest reachable total (Σ of each term's minimum over allowed strategies)
  // and its bound; both 0 without a row.
  std::int64_t memory_minimum_bytes = 0;
  std::int64_t memory_limit_bytes = 0;
  std::int64_t labels_pruned = 0;  // strategies LabelPruning::kBound dropped
};

// @post errors: kUnsupported when a pin matches no strategy ("node 'tokens': no strategy lays
//   output 0 out as S(0),R") or the memory limit is below the row's minimum (the message gives
//   the minimum and its parts); kBadInput from the edge coster or byte overflow.
core::Result<SelectionProblem> export_problem(const graph::Graph& graph,
                                              const GraphStrategies& strategies,
                                              const Constraints& constraints, EdgeCoster& coster,
                                              const ExportOptions& options = {});

// One strategy index per graph node (-1 outside the problem) from a labelling of sp.problem.
// @post error (kBadInput) when labels.size() != the problem's node count or a label is out of
//   range.
core::Result<std::vector<std::int32_t>> map_solution(const SelectionProblem& sp,
                                                     std::span<const solve::LabelIndex> labels);

// The inverse: the labelling of sp.problem for one strategy per graph node (-1 for a strategy
// that is not a label under LabelScope::kPinned).
// @pre choice.size() == graph nodes, valid strategies for problem nodes.
std::vector<solve::LabelIndex> labels_of(const SelectionProblem& sp,
                                         std::span<const std::int32_t> choice);

}  // namespace dtplan::strategy
