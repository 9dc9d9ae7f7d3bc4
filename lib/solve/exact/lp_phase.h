#pragma once
// Internal to the exact solver: the LP bound phase (dual_bound.h) of bound fixing: whether it
// runs and what for, how many passes it gets, and the long chain's LP started from its short
// chain's messages (and priced at its rates where the short chain's optimum breaks a memory row).

#include <cstdint>
#include <optional>
#include <vector>

#include "solve/engine/search.h"
#include "solve/exact/answer.h"
#include "solve/lp/dual_bound.h"
#include "solve/problem.h"
#include "solve/solver.h"

namespace dtplan::solve::detail {

// What the LP bound is used for.
enum class BoundUse : std::uint8_t {
  kNone,       // not run
  kTightOnly,  // its labelling where the LP is tight, else the plain exact solve
  kWindows,    // and, where it is not tight, label fixing in windows
};

// From SolveOptions::bound_fixing and, with kAuto, the median node's label count after simplify
// (kBoundFixingLabels); kNone where the problem has pins or followers (the LP bound reads unaries
// and edges only: simplify() folds them in) or no nodes.
BoundUse bound_use(const SolveOptions& options, const Problem& problem);

// Forward-and-backward passes of the LP bound: kBoundPasses, or, before windows, as many as
// kBoundWork matrix entries allow (one pass reads every edge matrix about once), up to
// kMaxBoundPasses. The LP converges slowly on 3-D meshes but is tight there, and windows on a
// loose bound cost far more. Counted in work, not time, so the passes (and the labels) do not
// depend on the clock.
std::int32_t bound_passes(const Problem& problem, bool windows);

// Where the long chain's LP starts: the short chain's messages lengthened and, where the short
// chain's optimum breaks a memory row, the rates at which the rows are priced (empty: none).
struct ShortChainStart {
  EdgeMessages messages;
  std::vector<double> rate;
  // Where rate is found: the rate search's plans over the budget and within it, lengthened.
  std::vector<LabelIndex> over;
  std::vector<LabelIndex> under;
};

// The long problem's LP bound, from the short chain's messages where there is one, and priced
// at its rates where the short chain's optimum broke a memory row: then a Lagrangian bound
// (memory_price.h), shifted back so that it bounds the labellings meeting the rows (its
// labels are the priced problem's, upper_us their priced cost less the shift). The passes stop
// once the bound settles a's labelling (proves it optimal, or within the gap asked for), or,
// unpriced, one they decode, or once the bound stalls (DualBoundOptions::until_stalled: the
// windows make better use of the time).
DualBound lp_bound(Problem& problem, const Answer& a, const SolveOptions& options,
                   const EngineOptions& eo, BoundUse use,
                   const std::optional<ShortChainStart>& start, SolverStats& stats);

}  // namespace dtplan::solve::detail
