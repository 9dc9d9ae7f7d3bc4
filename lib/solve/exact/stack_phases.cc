// The exact solver's phases for long stacks of repeated blocks (stack_phases.h).

#include "solve/exact/stack_phases.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

#include "solve/evaluate.h"
#include "solve/exact/bound_fixing.h"
#include "solve/memory/memory_price.h"
#include "solve/simplify.h"
#include "solve/stack/block_bound.h"
#include "solve/stack/block_sweep.h"
#include "solve/stack/short_chain.h"

namespace dtplan::solve::detail {

namespace {

// The caller's options for a sub-problem solved by this solver, within what is left of the limit.
SolveOptions within_time_left(const SolveOptions& options, const EngineOptions& eo) {
  SolveOptions sub = options;
  sub.time_limit_s =
      std::max(0.0, std::chrono::duration<double>(eo.limits.deadline - Clock::now()).count());
  return sub;
}

}  // namespace

std::optional<ShortChainStart> offer_short_chain(Answer& a, const Problem& problem,
                                                 const SolveOptions& options,
                                                 const EngineOptions& eo) {
  auto chain = short_chain(problem);
  if (!chain) return std::nullopt;
  EngineOptions short_eo = eo;
  const auto now = Clock::now();
  // Three quarters of the time left, written so that an unlimited deadline (time_point::max())
  // cannot overflow.
  const auto left = eo.limits.deadline - now;
  short_eo.limits.deadline = now + (left - left / 4);
  std::vector<MemoryRow> rows = std::move(chain->problem.memory);
  chain->problem.memory.clear();
  const BoundUse use = bound_use(options, chain->problem);
  const DualBound d = dual_bound(
      chain->problem, {.max_passes = bound_passes(chain->problem, use == BoundUse::kWindows),
                       .deadline = short_eo.limits.deadline,
                       .tight_only = use == BoundUse::kTightOnly});
  SolverStats ignored;
  auto s = solve_fixed(chain->problem, options, short_eo, ignored, use, &d);
  ShortChainStart out;
  out.messages = lengthen_messages(*chain, d.messages);
  if (!s.ok() || s->labels.empty()) return out;
  chain->problem.memory = std::move(rows);
  Answer short_answer;
  offer_repaired(short_answer, chain->problem, s->labels, eo);
  if (!short_answer.labels.empty()) {
    offer(a, problem, lengthen(*chain, short_answer.labels));
  }
  if (meets_memory(chain->problem.memory, s->labels)) return out;
  const double excess = excess_bytes(chain->problem.memory, s->labels);
  const double paid =
      short_answer.labels.empty() ? std::fabs(s->cost_us) + 1 : short_answer.cost_us - s->cost_us;
  if (!(excess > 0) || !(paid > 0)) return out;
  const std::vector<double> copies = copies_of(chain->source, chain->problem.nodes.size());
  const auto search = search_rate(std::move(chain->problem), copies, s->labels, d.messages,
                                  paid / excess, eo.limits.deadline);
  if (search.under.empty()) return out;
  offer(a, problem, lengthen(*chain, search.under));
  for (auto& mix : mixes_within(*chain, problem.memory, search.over, search.under)) {
    offer(a, problem, std::move(mix));
  }
  offer_repaired(a, problem, lengthen(*chain, s->labels), eo);
  offer_repaired(a, problem, lengthen(*chain, search.over), eo);
  out.messages = lengthen_messages(*chain, search.messages);
  out.rate = search.rate;
  out.over = lengthen(*chain, search.over);
  out.under = lengthen(*chain, search.under);
  return out;
}

std::vector<Pin> two_plan_pins(const ShortChainStart& start, const Answer& a) {
  std::vector<Pin> out;
  out.reserve(a.labels.size());
  for (std::size_t v = 0; v < a.labels.size(); ++v) {
    std::vector<LabelIndex> allowed{start.over[v], start.under[v], a.labels[v]};
    std::sort(allowed.begin(), allowed.end());
    allowed.erase(std::unique(allowed.begin(), allowed.end()), allowed.end());
    out.push_back({static_cast<NodeIndex>(v), std::move(allowed)});
  }
  return out;
}

std::int64_t pinned_labels(const std::vector<Pin>& pins) {
  std::int64_t out = 0;
  for (const Pin& p : pins) out += static_cast<std::int64_t>(p.labels.size());
  return out;
}

void offer_two_plan_window(Answer& a, Problem& problem, std::vector<Pin> pins,
                           const SolveOptions& options, const EngineOptions& eo,
                           SolverStats& stats) {
  problem.pins = std::move(pins);
  auto window = simplify(problem, eo.limits.deadline);
  problem.pins.clear();
  if (!window.ok()) return;
  SolveOptions exact = options;
  exact.relative_gap = 0;
  SolverStats ignored;
  const ReducedSolve r = solve_reduced(std::move(window->problem), exact, eo, ignored, a.cost_us);
  ++stats.two_plan_windows;
  if (!r.sol.found) return;
  auto lifted = lift(window->remap, r.sol.assignment);
  if (!lifted.ok()) return;
  const double before = a.cost_us;
  offer(a, problem, std::move(*lifted));
  stats.two_plan_gain_us += before - a.cost_us;
}

void raise_block_bound(Answer& a, const Problem& problem, const EdgeMessages& messages,
                       const SolveOptions& options, const EngineOptions& eo, SolverStats& stats) {
  const PartSolve solve = [&](const Problem& q) {
    SolveOptions sub = within_time_left(options, eo);
    sub.relative_gap /= 4;
    auto r = make_exact_solver()->solve(q, sub);
    if (!r.ok()) return PartSolution{};
    return PartSolution{r->lower_bound_us, std::move(r->labels)};
  };
  BlockBoundStats block;
  BlockBound b = block_bound(problem, messages, solve, eo.limits.deadline, block);
  stats.block_bound_solves += block.solved;
  a.bound = std::max(a.bound, b.lower_bound_us);
  if (b.labels.empty()) return;
  const double before = a.cost_us;
  offer(a, problem, std::move(b.labels));
  if (a.cost_us < before) offer_block_copies(a, problem);
}

void offer_block_sweep(Answer& a, const Problem& problem, const SolveOptions& options,
                       const EngineOptions& eo, const std::function<bool(double)>& enough,
                       SolverStats& stats) {
  const BlockSolve solve = [&](const Problem& q) -> std::optional<std::vector<LabelIndex>> {
    auto r = make_exact_solver()->solve(q, within_time_left(options, eo));
    if (!r.ok() || r->labels.empty()) return std::nullopt;
    return std::move(r->labels);
  };
  BlockSweepStats sweep;
  offer(a, problem, sweep_blocks(problem, a.labels, solve, enough, eo.limits.deadline, sweep));
  stats.block_sweep_solves += sweep.solved;
  stats.block_sweep_gain_us += sweep.gain_us;
}

}  // namespace dtplan::solve::detail
