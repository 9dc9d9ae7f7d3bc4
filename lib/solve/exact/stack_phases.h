#pragma once
// Internal to the exact solver: the phases of bound fixing that exploit a long stack of repeated
// blocks (layers): the short chain's optimum as an incumbent, the two-plan window, the block bound
// and the block sweep. Each offers labellings to an Answer (answer.h) or raises its bound.

#include <functional>
#include <optional>
#include <vector>

#include "solve/engine/search.h"
#include "solve/exact/answer.h"
#include "solve/exact/lp_phase.h"
#include "solve/lp/dual_bound.h"
#include "solve/problem.h"
#include "solve/solver.h"

namespace dtplan::solve::detail {

// How far below its incumbent (a share of its cost) the long chain's LP must stall for the block
// bound to run: nearer, the windows settle the solve sooner (on LLaMA3-70B's 3-D meshes, the
// stacks the windows prove quickly stall within 0.011% of it; those they do not, 0.19% or more).
inline constexpr double kBlockBoundGap = 1e-3;

// How far from the gap asked for (a multiple of it) a memory-bound incumbent still gets the block
// sweep before the windows: only near the gap can a block or two settle the solve, and the sweep's
// block solves can take seconds each.
inline constexpr double kSweepGaps = 4;

// (a) Offers the optimum of the short chain (short_chain.h) lengthened, when the problem is a long
// chain of repeated blocks, and returns the short chain's LP messages lengthened: the long chain's
// LP starts from them (and is tight after far fewer passes than from zero). The short chain is
// solved like any problem (its LP, then windows where it is not tight) within 3/4 of what is left
// of the time limit (the long chain's bound gets the rest; the incumbent matters most there),
// without its memory rows (with them, its 3-D instances outlast the limit), and repaired against
// them where its optimum breaks one. Where it breaks one, the rate search (memory_price.h) on the
// short chain finds the layer plans on either side of the budget; the lean one lengthened, the
// mixes of the two (short_chain.h) and, repaired on the long chain (where a repair may change some
// layers only, so costs less than one on the short chain), the short optimum and the cheap plan
// lengthened are offered, and the long LP is priced at the rate found.
std::optional<ShortChainStart> offer_short_chain(Answer& a, const Problem& problem,
                                                 const SolveOptions& options,
                                                 const EngineOptions& eo);

// (c) The two-plan window's pins: each node limited to its distinct labels in start's plans and
// a's.
std::vector<Pin> two_plan_pins(const ShortChainStart& start, const Answer& a);

// The labels `pins` keep, all nodes together.
std::int64_t pinned_labels(const std::vector<Pin>& pins);

// (c) Offers the optimum of `problem` with each node restricted to its labels in the rate search's
// two plans (over the budget and within it) and in a's labelling (`pins`, two_plan_pins), memory
// rows included: a memory-bound stack's best plan may take part of one layer plan and part of the
// other in each layer, where mixes of whole layers leave up to a layer's bytes unused under the
// budget, the Lagrangian bound's integrality gap. The caller runs it where the other windows, up to
// the last (at the incumbent's cost), could keep over twice its labels: where they keep fewer, the
// first of them settles the solve sooner. The pins go on `problem` for the simplify only.
void offer_two_plan_window(Answer& a, Problem& problem, std::vector<Pin> pins,
                           const SolveOptions& options, const EngineOptions& eo,
                           SolverStats& stats);

// (d) Raises a.bound to the block bound (block_bound.h) from the long chain's LP messages, each
// part solved by this solver within a quarter of the gap asked for (so the bound gives up at most
// that much), and offers the parts' labellings put together (and, like the LP's, each layer's
// copied to all). Where the LP is loose inside each layer, the exact layers settle what windows
// cannot.
void raise_block_bound(Answer& a, const Problem& problem, const EdgeMessages& messages,
                       const SolveOptions& options, const EngineOptions& eo, SolverStats& stats);

// (e) Offers a's labelling improved one repeated block at a time, memory rows included
// (block_sweep.h), each block solved by this solver (with the caller's gap) within what is left of
// the time limit: the two-plan window mixes the rate search's plans node by node; here a block may
// take any of its labels, and spend the bytes that mixes of whole layer plans leave under the
// budget. `enough`: the sweep stops.
void offer_block_sweep(Answer& a, const Problem& problem, const SolveOptions& options,
                       const EngineOptions& eo, const std::function<bool(double)>& enough,
                       SolverStats& stats);

}  // namespace dtplan::solve::detail
