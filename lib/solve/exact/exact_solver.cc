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
#include <functional>
#include <limits>
#include <optional>
#include <string>

#include "core/units.h"
#include "solve/engine/repeated.h"
#include "solve/engine/search.h"
#include "solve/evaluate.h"
#include "solve/lp/dual_bound.h"
#include "solve/memory/infeasibility.h"
#include "solve/memory/lagrange.h"
#include "solve/memory/memory_price.h"
#include "solve/memory/memory_repair.h"
#include "solve/memory/window.h"
#include "solve/simplify.h"
#include "solve/solver.h"
#include "solve/stack/block_bound.h"
#include "solve/stack/block_sweep.h"
#include "solve/stack/short_chain.h"

namespace dtplan::solve {

namespace {

using detail::Clock;
using detail::EngineOptions;
using detail::EngineSolution;

// Forward-and-backward passes of the LP bound: kBoundPasses, or, before windows, as many as
// kBoundWork matrix entries allow (one pass reads every edge matrix about once), up to
// kMaxBoundPasses. The LP converges slowly on 3-D meshes but is tight there (LLaMA3-70B on 8x8x8:
// 65, 90 and 124 passes for 1, 2 and 3 layers, 0.3-3.5 s), and windows on a loose bound cost far
// more. Counted in work, not time, so the passes (and the labels) do not depend on the clock.
constexpr std::int32_t kBoundPasses = 60;
constexpr std::int32_t kMaxBoundPasses = 1000;
constexpr double kBoundWork = 3e9;

std::int32_t bound_passes(const Problem& problem, bool windows) {
  if (!windows) return kBoundPasses;
  double entries = 1;
  for (const Edge& e : problem.edges) entries += static_cast<double>(e.cost_us.size());
  const double passes =
      std::clamp(kBoundWork / entries, double{kBoundPasses}, double{kMaxBoundPasses});
  return static_cast<std::int32_t>(passes);
}

// Solves one variant of the problem (relaxed, Lagrangian or memory-aware), through the shared
// repeat shapes; `outside` enables the window filter.
EngineSolution solve_problem(const detail::EngineProblem& problem,
                             const std::vector<detail::GroupShape>& shapes, const EngineOptions& eo,
                             SolverStats& stats, const detail::OutsideSet* outside = nullptr) {
  EngineSolution sol;
  if (!shapes.empty()) {
    const detail::Decomposition d =
        detail::decompose(shapes, problem, eo, outside != nullptr ? &outside->groups : nullptr);
    if (!d.complete) {
      sol.stop = d.stop;
      return sol;
    }
    sol = detail::solve_engine(d.global, eo, outside != nullptr ? outside->global : nullptr);
    if (sol.found && !detail::decode_blocks(d, sol).ok()) sol.found = false;
    stats.repeat_blocks = d.blocks;
    stats.repeat_interior_nodes = d.interior_nodes;
  } else {
    sol = detail::solve_engine(problem, eo, outside != nullptr ? outside->global : nullptr);
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
EngineSolution solve_with_memory(const detail::EngineProblem& full,
                                 const std::vector<detail::GroupShape>& shapes,
                                 const EngineOptions& eo, SolverStats& stats,
                                 const EngineSolution& relaxed, double& bound,
                                 const GapStop& stop) {
  auto scalar = [&](const detail::EngineProblem& p) { return solve_problem(p, shapes, eo, stats); };
  const detail::DualResult dual =
      detail::lagrangian_dual(full, scalar, eo.limits.deadline, &relaxed);
  bound = std::max(bound, dual.lower_bound_us);
  EngineSolution best;
  if (dual.found) {
    best.found = true;
    best.assignment = dual.labels;
    best.value_us = dual.cost_us;
  }
  if (stop.reached(best.value_us, bound)) return best;  // incomplete: within the gap
  detail::EngineProblem filtered = full;
  filtered.memory.multiplier = dual.multiplier;
  const double offset = detail::multiplier_offset(full.memory, dual.multiplier);
  const auto outside =
      detail::outside_set(detail::lagrangian_problem(full, dual.multiplier), shapes, eo);
  if (!outside) {
    // Too wide for the backward pass: one solve with the weaker per-entry gap filter.
    if (dual.found) {
      filtered.memory.max_reduced_cost =
          dual.cost_us - dual.lower_bound_us + 1e-9 * (std::fabs(dual.cost_us) + 1);
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
    filtered.memory.threshold = threshold + 1e-9 * (std::fabs(threshold) + 1);
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

// The exact solve of a simplified problem: repeats shared, memory rows through the relaxation
// first (a labelling meeting them anyway is optimal), then the Lagrangian windows. `bound` is a
// lower bound on the problem's optimum beside sol.lower_bound_us.
struct ReducedSolve {
  EngineSolution sol;
  double bound = -kForbidden;
  detail::EngineProblem full;
  std::vector<MemoryRow> rows;
};

ReducedSolve solve_reduced(Problem problem, const SolveOptions& options, const EngineOptions& eo,
                           SolverStats& stats, double incumbent_us = kForbidden) {
  ReducedSolve r;
  r.rows = problem.memory;
  const std::vector<RepeatGroup> repeats = problem.repeats;
  r.full = detail::build_engine_problem(std::move(problem));
  const std::vector<detail::GroupShape> shapes = options.repeats == RepeatMode::kExploit
                                                     ? detail::analyse_repeats(repeats, r.full, eo)
                                                     : std::vector<detail::GroupShape>{};
  if (r.rows.empty()) {
    r.sol = solve_problem(r.full, shapes, eo, stats);
    return r;
  }
  r.sol = solve_problem(detail::without_memory(r.full), shapes, eo, stats);
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

// What the LP bound is used for.
enum class BoundUse : std::uint8_t {
  kNone,       // not run
  kTightOnly,  // its labelling where the LP is tight, else the plain exact solve
  kWindows,    // and, where it is not tight, label fixing in windows
};

BoundUse bound_use(const SolveOptions& options, const Problem& problem) {
  // The LP bound reads unaries and edges only (simplify() folds pins and followers into them).
  if (!problem.pins.empty() || !problem.followers.empty() || problem.nodes.empty() ||
      options.bound_fixing == BoundFixing::kOff) {
    return BoundUse::kNone;
  }
  if (options.bound_fixing == BoundFixing::kOn) return BoundUse::kWindows;
  std::vector<std::size_t> sizes;
  for (const Node& node : problem.nodes) sizes.push_back(node.cost_us.size());
  auto middle = sizes.begin() + static_cast<std::ptrdiff_t>(sizes.size() / 2);
  std::nth_element(sizes.begin(), middle, sizes.end());
  return *middle > static_cast<std::size_t>(kBoundFixingLabels) ? BoundUse::kWindows
                                                                : BoundUse::kTightOnly;
}

// The answer on the simplified problem: labels (in its label space) and what is proven of them.
struct Answer {
  std::vector<LabelIndex> labels;  // empty: none found
  double cost_us = kForbidden;
  double bound = -kForbidden;  // lower bound on the optimum
  bool optimal = false;
  bool infeasible = false;  // proven: no labelling meets every constraint
  bool within_gap = false;  // stopped with cost - bound within SolveOptions::relative_gap
  detail::RunStatus stop = detail::RunStatus::kComplete;
  ReducedSolve last;  // the last exact solve (for explain_infeasible())
};

// Whether a labelling costing `cost` is within SolveOptions::relative_gap of `bound`.
bool within_gap(double cost, double bound, const SolveOptions& options) {
  return options.relative_gap > 0 && cost - bound <= options.relative_gap * std::fabs(cost);
}

// Whether a's labelling, not proven optimal, is close enough to its bound to stop
// (SolveOptions::relative_gap > 0); records it in a.within_gap.
bool close_enough(Answer& a, const SolveOptions& options) {
  a.within_gap = !a.optimal && !a.labels.empty() && within_gap(a.cost_us, a.bound, options);
  return a.within_gap;
}

void offer(Answer& a, const Problem& problem, std::vector<LabelIndex> labels) {
  const auto ev = evaluate(problem, labels);
  if (ev.ok() && ev->feasible() && ev->total_us < a.cost_us) {
    a.cost_us = ev->total_us;
    a.labels = std::move(labels);
  }
}

// Offers a's labelling with every block of a repeat group relabelled like one of its blocks, for
// each group and block in order: the LP decodes alike layers apart, and the best decoded layer
// repeated is often cheaper than the mix (deep stacks: one layer's plan fits every layer).
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

// Offers `labels`, repaired first where they break a memory row (memory_repair.h).
void offer_repaired(Answer& a, const Problem& problem, std::vector<LabelIndex> labels,
                    const EngineOptions& eo) {
  if (!meets_memory(problem.memory, labels)) {
    auto fixed = detail::repair_memory(problem, std::move(labels), eo.limits.deadline);
    if (!fixed) return;
    labels = std::move(*fixed);
  }
  offer(a, problem, std::move(labels));
}

core::Result<Answer> solve_fixed(Problem problem, const SolveOptions& options,
                                 const EngineOptions& eo, SolverStats& stats, BoundUse use,
                                 const detail::DualBound* given = nullptr);

// Where the long chain's LP starts: the short chain's messages lengthened and, where the short
// chain's optimum breaks a memory row, the rates at which the rows are priced (empty: none).
struct ShortChainStart {
  detail::EdgeMessages messages;
  std::vector<double> rate;
  // Where rate is found: the rate search's plans over the budget and within it, lengthened.
  std::vector<LabelIndex> over;
  std::vector<LabelIndex> under;
};

// Offers the optimum of the short chain (short_chain.h) lengthened, when the problem is a long
// chain of repeated blocks, and returns the short chain's LP messages lengthened: the long
// chain's LP starts from them (LLaMA3-70B, 80 layers on 16x4x16: tight after 6 passes, 38 from
// zero). The short chain is solved like any problem (its LP, then windows where it is not tight)
// within 3/4 of what is left of the time limit (the long chain's bound gets the rest; the
// incumbent matters most there), without its memory rows (with them, its 3-D instances outlast
// the limit), and repaired against them where its optimum breaks one. Where it breaks one, the
// rate search (memory_price.h) on the short chain finds the layer plans on either side of the
// budget; the lean one lengthened, the mixes of the two (short_chain.h) and, repaired on the long
// chain (where a repair may change some layers only), the short optimum and the cheap plan
// lengthened are offered, and the long LP is priced at the rate found (LLaMA3-70B, 80 layers, on
// 2x2x256 under 80 GiB: 5,078,086 us against 5,101,557 us repaired on the short chain).
std::optional<ShortChainStart> offer_short_chain(Answer& a, const Problem& problem,
                                                 const SolveOptions& options,
                                                 const EngineOptions& eo) {
  auto chain = detail::short_chain(problem);
  if (!chain) return std::nullopt;
  EngineOptions short_eo = eo;
  const auto now = Clock::now();
  short_eo.limits.deadline = now + (eo.limits.deadline - now) * 3 / 4;
  std::vector<MemoryRow> rows = std::move(chain->problem.memory);
  chain->problem.memory.clear();
  const BoundUse use = bound_use(options, chain->problem);
  const detail::DualBound d =
      detail::dual_bound(chain->problem, bound_passes(chain->problem, use == BoundUse::kWindows),
                         short_eo.limits.deadline, use == BoundUse::kTightOnly);
  SolverStats ignored;
  auto s = solve_fixed(chain->problem, options, short_eo, ignored, use, &d);
  ShortChainStart out;
  out.messages = detail::lengthen_messages(*chain, d.messages);
  if (!s.ok() || s->labels.empty()) return out;
  chain->problem.memory = std::move(rows);
  Answer short_answer;
  offer_repaired(short_answer, chain->problem, s->labels, eo);
  if (!short_answer.labels.empty()) {
    offer(a, problem, detail::lengthen(*chain, short_answer.labels));
  }
  if (meets_memory(chain->problem.memory, s->labels)) return out;
  const double excess = detail::excess_bytes(chain->problem.memory, s->labels);
  const double paid =
      short_answer.labels.empty() ? std::fabs(s->cost_us) + 1 : short_answer.cost_us - s->cost_us;
  if (!(excess > 0) || !(paid > 0)) return out;
  const std::vector<double> copies = detail::copies_of(chain->source, chain->problem.nodes.size());
  const auto search = detail::search_rate(std::move(chain->problem), copies, s->labels, d.messages,
                                          paid / excess, eo.limits.deadline);
  if (search.under.empty()) return out;
  offer(a, problem, detail::lengthen(*chain, search.under));
  for (auto& mix : detail::mixes_within(*chain, problem.memory, search.over, search.under)) {
    offer(a, problem, std::move(mix));
  }
  offer_repaired(a, problem, detail::lengthen(*chain, s->labels), eo);
  offer_repaired(a, problem, detail::lengthen(*chain, search.over), eo);
  out.messages = detail::lengthen_messages(*chain, search.messages);
  out.rate = search.rate;
  out.over = detail::lengthen(*chain, search.over);
  out.under = detail::lengthen(*chain, search.under);
  return out;
}

// The two-plan window's pins: each node limited to its distinct labels in start's plans and a's.
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

// Offers the optimum of `problem` with each node restricted to its labels in the rate search's two
// plans (over the budget and within it) and in a's labelling (`pins`, two_plan_pins), memory rows
// included: a memory-bound
// stack's best plan may take part of one layer plan and part of the other in each layer, where
// mixes of whole layers leave up to a layer's bytes unused under the budget, the Lagrangian
// bound's integrality gap (LLaMA3-70B, 80 layers, on 4x128x2 under 80 GiB: 2,939,475 us, within
// 0.008% of the bound, found in 2 s; the incumbent was 2,939,578 us, 0.011% above, at the 8 s
// limit). It runs where the other windows, up to the last (at the incumbent's cost), could keep
// over twice its labels (two_plan_pins; LLaMA3-8B, 32 layers, on 8x8 under 80 GiB: 10,078
// against 8,126, and the first window proves the optimum at once, 20% of the solve time spent
// in the two-plan window otherwise; 4x128x2: 650,482 against 26,570). The pins go on `problem`
// for the simplify only.
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

// The caller's options for a sub-problem solved by this solver, within what is left of the limit.
SolveOptions within_time_left(const SolveOptions& options, const EngineOptions& eo) {
  SolveOptions sub = options;
  sub.time_limit_s =
      std::max(0.0, std::chrono::duration<double>(eo.limits.deadline - Clock::now()).count());
  return sub;
}

// Raises a.bound to the block bound (block_bound.h) from the long chain's LP messages, each part
// solved by this solver within a quarter of the gap asked for (so the bound gives up at most that
// much), and offers the parts' labellings put together (and, like the LP's, each layer's copied
// to all). Where the LP is loose inside each layer, the exact layers settle what windows cannot:
// LLaMA3-70B, 80 layers, on 8x8x8, `--gap 1e-4`: the LP stalled 0.81% below the plan; five parts
// solved in ~3 s leave 0.004%, where the windows ran to the limit 0.8% short.
void raise_block_bound(Answer& a, const Problem& problem, const detail::EdgeMessages& messages,
                       const SolveOptions& options, const EngineOptions& eo, SolverStats& stats) {
  const detail::PartSolve solve = [&](const Problem& q) {
    SolveOptions sub = within_time_left(options, eo);
    sub.relative_gap /= 4;
    auto r = make_exact_solver()->solve(q, sub);
    if (!r.ok()) return detail::PartSolution{};
    return detail::PartSolution{r->lower_bound_us, std::move(r->labels)};
  };
  detail::BlockBoundStats block;
  detail::BlockBound b = detail::block_bound(problem, messages, solve, eo.limits.deadline, block);
  stats.block_bound_solves += block.solved;
  a.bound = std::max(a.bound, b.lower_bound_us);
  if (b.labels.empty()) return;
  const double before = a.cost_us;
  offer(a, problem, std::move(b.labels));
  if (a.cost_us < before) offer_block_copies(a, problem);
}

// How far below its incumbent (a share of its cost) the long chain's LP must stall for the block
// bound to run: nearer, the windows settle the solve sooner. LLaMA3-70B, 80 layers, on the 28 3-D
// meshes of 512 ranks: the 23 the windows prove within 10 s stall 0.0105% below or nearer (the
// block bound took them 0.1-3 s longer), the 5 they do not 0.19-1.44% below.
constexpr double kBlockBoundGap = 1e-3;

// How far from the gap asked for (a multiple of it) a memory-bound incumbent still gets the block
// sweep before the windows: only near the gap can a block or two settle the solve, and the sweep's
// block solves can take seconds each (one layer of 128x4x2 under 80 GiB: 5.8 s unproven).
constexpr double kSweepGaps = 4;

// Offers a's labelling improved one repeated block at a time, memory rows included (block_sweep.h),
// each block solved by this solver (with the caller's gap) within what is left of the time limit:
// the two-plan window mixes the rate search's plans node by node; here a block may take any of its
// labels, and spend the bytes that mixes of whole layer plans leave under the budget. LLaMA3-70B,
// 80 layers, on 128x2x4 under 80 GiB, `--gap 1e-4`: after the LP the incumbent was 0.0114% above
// the bound and no two-plan mix cheaper; layers 0 and 1 re-solved (0.5 s) took 90 us off, 0.0094%
// above it, and the solve ends in 13 s instead of at the 60 s limit. `enough`: the sweep stops.
void offer_block_sweep(Answer& a, const Problem& problem, const SolveOptions& options,
                       const EngineOptions& eo, const std::function<bool(double)>& enough,
                       SolverStats& stats) {
  const detail::BlockSolve solve = [&](const Problem& q) -> std::optional<std::vector<LabelIndex>> {
    auto r = make_exact_solver()->solve(q, within_time_left(options, eo));
    if (!r.ok() || r->labels.empty()) return std::nullopt;
    return std::move(r->labels);
  };
  detail::BlockSweepStats sweep;
  offer(a, problem,
        detail::sweep_blocks(problem, a.labels, solve, enough, eo.limits.deadline, sweep));
  stats.block_sweep_solves += sweep.solved;
  stats.block_sweep_gain_us += sweep.gain_us;
}

// The plain exact solve, as an Answer; `incumbent_us`: the cost of a labelling known elsewhere
// (the memory-aware solve may stop within SolveOptions::relative_gap of it).
Answer solve_plain(Problem problem, const SolveOptions& options, const EngineOptions& eo,
                   SolverStats& stats, double incumbent_us = kForbidden) {
  Answer a;
  a.last = solve_reduced(std::move(problem), options, eo, stats, incumbent_us);
  const EngineSolution& sol = a.last.sol;
  a.bound = std::max(a.last.bound, sol.lower_bound_us);
  a.stop = sol.stop;
  if (sol.found) {
    a.labels = sol.assignment;
    a.cost_us = sol.value_us;
  }
  a.optimal = sol.found && sol.complete;
  a.infeasible = !sol.found && sol.complete;
  return a;
}

// The long problem's LP bound, from the short chain's messages where there is one, and priced
// at its rates where the short chain's optimum broke a memory row: then a Lagrangian bound
// (memory_price.h), shifted back so that it bounds the labellings meeting the rows (its
// labels are the priced problem's, upper_us their priced cost less the shift). The passes stop
// once the bound settles a's labelling (proves it optimal, or within the gap asked for), or,
// unpriced, one they decode, or once the bound stalls (dual_bound's until_stalled: the windows
// make better use of the time; LLaMA3-70B, 80 layers, on 8x16x8, `--time-limit 8`: within the
// gap in 6.7 s instead of 0.17% above the bound at the limit).
detail::DualBound lp_bound(Problem& problem, const Answer& a, const SolveOptions& options,
                           const EngineOptions& eo, BoundUse use,
                           const std::optional<ShortChainStart>& start, SolverStats& stats) {
  double enough = kForbidden;
  if (!a.labels.empty()) {
    const double c = a.cost_us;
    enough = std::min(detail::gap_stop(c, options.relative_gap), c - 0.5e-9 * (std::fabs(c) + 1));
  }
  const std::int32_t passes = bound_passes(problem, use == BoundUse::kWindows);
  const bool tight_only = use == BoundUse::kTightOnly;
  const detail::EdgeMessages* warm = start ? &start->messages : nullptr;
  if (!start || start->rate.empty()) {
    return detail::dual_bound(problem, passes, eo.limits.deadline, tight_only, warm, enough,
                              options.relative_gap, true);
  }
  detail::DualBound d = detail::priced_dual_bound(problem, start->rate, passes, eo.limits.deadline,
                                                  tight_only, warm, enough, true);
  stats.priced_passes = d.passes;
  return d;
}

// Bound fixing (dual_bound.h) in windows: with the LP bound LB, its labelling (cost UB) and
// per-label bounds, the labels whose bound exceeds a threshold T are pinned away and the rest
// solved exactly. Every labelling using a pinned label costs more than T, so a window optimum
// costing at most T is the optimum; otherwise T grows (LB + (UB - LB)/64, then x8 per window,
// up to UB, the cost of the best labelling so far: the LP's (repaired where it breaks a memory
// row) or the short chain's, lowered by any window's optimum above its T; the UB labelling itself
// is in that last window; without a finite LP labelling or any feasible one, the whole problem is
// solved). Small windows keep few labels, which is what makes 3-D meshes' 30-128-label domains
// tractable. With `use` kTightOnly, only a tight LP's labelling is taken; otherwise the plain
// exact solve runs, with the best labelling so far kept where it stops first. The short chain's
// incumbent comes first with windows, and with memory rows either way: a memory-bound plain solve
// (the Lagrangian path) can take long to find a good labelling of its own (LLaMA3-70B on 16x64
// under 80 GiB: 1.04 s per step found in 8 s without it, the optimum 0.915 s in 4 s with it).
// The long chain's LP starts from the short chain's messages, and its passes stop once the bound
// settles the incumbent; priced at the short chain's rate and not settled, the two-plan window
// (offer_two_plan_window) runs before the others where it is much the smaller. With
// SolveOptions::relative_gap, the solve stops once the incumbent is within the gap of the bound
// (T stops short of UB by the gap). `given`: this problem's LP bound, already computed (a short
// chain's own solve), so neither it nor a short chain runs again.
core::Result<Answer> solve_fixed(Problem problem, const SolveOptions& options,
                                 const EngineOptions& eo, SolverStats& stats, BoundUse use,
                                 const detail::DualBound* given) {
  Answer a;
  std::optional<ShortChainStart> start;
  if (given == nullptr && (use == BoundUse::kWindows || !problem.memory.empty())) {
    start = offer_short_chain(a, problem, options, eo);
  }
  detail::DualBound computed;
  const bool priced_lp = start && !start->rate.empty();
  if (given == nullptr) computed = lp_bound(problem, a, options, eo, use, start, stats);
  const detail::DualBound& d = given != nullptr ? *given : computed;
  stats.dual_passes = d.passes;
  a.bound = d.lower_bound_us;
  if (!(d.lower_bound_us < kForbidden)) {
    a.infeasible = true;
    a.last = solve_reduced(std::move(problem), options, eo, stats);
    return a;
  }
  const double lb = d.lower_bound_us;
  if (d.upper_us < kForbidden) {
    offer_repaired(a, problem, d.labels, eo);
    offer_block_copies(a, problem);
  }
  // The LP is tight: the best labelling is optimal (to the 1e-9 relative slack of the filter).
  if (!a.labels.empty() && detail::meets_bound(a.cost_us, lb)) {
    a.bound = std::min(lb, a.cost_us);
    a.optimal = true;
    return a;
  }
  if (close_enough(a, options)) return a;
  const bool usable = d.upper_us < kForbidden && !a.labels.empty();
  // A memory-bound stack priced at its short chain's rate takes windows whatever its label
  // count: its label bounds include the memory rows, so the windows keep few labels (LLaMA3-8B,
  // 32 layers, on 8x8 under 80 GiB: proven in 0.41 s; the plain Lagrangian solve took 33-43 s).
  if (!usable || (use != BoundUse::kWindows && !priced_lp)) {
    // No labelling to measure windows against, or no windows wanted: the whole problem, with
    // the LP bound and labelling kept (the better one where the solve stops early).
    Answer plain = solve_plain(std::move(problem), options, eo, stats, a.cost_us);
    plain.bound = std::max(plain.bound, lb);
    if (!a.labels.empty() && (plain.labels.empty() || a.cost_us < plain.cost_us)) {
      plain.labels = std::move(a.labels);
      plain.cost_us = a.cost_us;
    }
    close_enough(plain, options);
    return plain;
  }
  // Memory-bound (the LP's labelling breaks a row, so its bound ignores what meeting it costs):
  // the windows measure against the Lagrangian bound where that is higher.
  std::optional<detail::DualBound> priced;
  if (!priced_lp && !problem.memory.empty() && !meets_memory(problem.memory, d.labels)) {
    priced = detail::memory_priced_bound(problem, d, a.cost_us, eo.limits.deadline);
    if (priced) stats.priced_passes = priced->passes;
    if (priced && !(priced->lower_bound_us > lb)) priced.reset();
  }
  const detail::DualBound& wd = priced ? *priced : d;
  const double wlb = wd.lower_bound_us;
  a.bound = std::max(a.bound, wlb);
  // Whether the incumbent is proven optimal (marked so) or within the gap asked for.
  auto settled = [&] {
    if (detail::meets_bound(a.cost_us, a.bound)) a.optimal = true;
    return a.optimal || close_enough(a, options);
  };
  if (settled()) return a;
  if (priced_lp) {
    std::vector<Pin> pins = two_plan_pins(*start, a);
    if (detail::kept_labels(wd, a.cost_us) > 2 * pinned_labels(pins)) {
      offer_two_plan_window(a, problem, std::move(pins), options, eo, stats);
      if (settled()) return a;
    }
  }
  const bool block_bound =
      start && !priced_lp && a.cost_us - a.bound > kBlockBoundGap * std::fabs(a.cost_us);
  if (block_bound) {
    raise_block_bound(a, problem, d.messages, options, eo, stats);
    if (settled()) return a;
  }
  // Within a few gaps of the bound, a memory-bound stack's incumbent may be a block or two of
  // spare bytes away from settling it (offer_block_sweep); further away, the windows first. After
  // the block bound, its layer plans may join better block by block (LLaMA3-70B, 80 layers, on
  // 4x16x8: 1,029,698 us put together, 1,026,690 us swept, four block solves).
  const bool near = a.cost_us - a.bound <= kSweepGaps * options.relative_gap * std::fabs(a.cost_us);
  if (block_bound ||
      (!problem.memory.empty() && !problem.repeats.empty() && options.relative_gap > 0 && near)) {
    const auto enough = [&](double cost) {
      return detail::meets_bound(cost, a.bound) || within_gap(cost, a.bound, options);
    };
    offer_block_sweep(a, problem, options, eo, enough, stats);
    if (settled()) return a;
  }
  double gap =
      std::max(((priced ? a.cost_us : d.upper_us) - wlb) / 64, 1e-6 * (std::fabs(wlb) + 1));
  const std::int64_t labels = problem_size(problem).labels;
  for (;;) {
    if (Clock::now() > eo.limits.deadline) {  // no window starts after the time limit
      a.stop = detail::RunStatus::kTimeLimit;
      return a;
    }
    // The best labelling so far (the LP's, or a window's costing more than its T) caps T.
    // With a relative gap, T stops short of it: nothing within upper - gap settles the solve.
    const double upper = a.cost_us;
    const double stop_at = detail::gap_stop(upper, options.relative_gap);
    double threshold = wlb + gap < stop_at ? wlb + gap : stop_at;
    // A window keeping about as many labels as the last one costs about as much: the last one
    // then (a memory-bound stack whose priced LP is nearly tight: one window instead of two).
    if (threshold < stop_at &&
        detail::kept_labels(wd, stop_at) <= detail::kept_labels(wd, threshold) * 101 / 100) {
      threshold = stop_at;
    }
    const bool last = !(threshold < upper);
    // The window's pins go on the problem itself (it has none: simplified) for the simplify
    // only: no copy of the whole problem per window.
    if (threshold < kForbidden) problem.pins = detail::bound_pins(wd, threshold, problem.repeats);
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
      const double slack = 1e-9 * (std::fabs(threshold) + 1);
      if (sol.found && sol.value_us <= threshold + slack) {
        a.optimal = true;
        return a;
      }
    } else if (again.error().kind != core::ErrorKind::kUnsupported) {
      return again.error();
    }
    // Nothing within T: every labelling costs more than T.
    a.bound = std::max(a.bound, threshold);
    if (close_enough(a, options)) return a;
    if (last) {
      // The UB labelling lies in its own window; only rounding could get here.
      a.optimal = !a.labels.empty() && detail::meets_bound(a.cost_us, a.bound);
      return a;
    }
    gap *= 8;
  }
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
    if (const BoundUse use = bound_use(options, s.problem); use != BoundUse::kNone) {
      DTPLAN_TRY(a, solve_fixed(std::move(s.problem), options, eo, out.stats, use));
    } else {
      a = solve_plain(std::move(s.problem), options, eo, out.stats);
      close_enough(a, options);
    }
    if (a.within_gap) out.stats.stop_reason = "gap";
    if (a.stop == detail::RunStatus::kTimeLimit) out.stats.stop_reason = "time_limit";
    if (a.stop == detail::RunStatus::kPointLimit) out.stats.stop_reason = "point_limit";
    std::vector<LabelIndex> labels;
    if (!a.labels.empty()) {
      DTPLAN_TRY(labels, lift(s.remap, a.labels));
    } else if (a.infeasible) {
      return detail::explain_infeasible(a.last.full, a.last.rows, eo);
    } else {
      // Stopped before any feasible labelling: fall back on the greedy one, if it finds one.
      auto greedy = make_greedy_solver()->solve(problem, options);
      if (!greedy.ok()) {
        return core::Error::unsupported("exact solver stopped (" + out.stats.stop_reason +
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
    out.optimal = a.optimal;
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
