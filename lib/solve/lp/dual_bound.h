#pragma once
// Internal to lib/solve: lower bounds from the LP relaxation of a pairwise problem (the local
// polytope), and the labels they prove useless.
//
// Message passing in the SRMP form of sequential tree-reweighted message passing (TRW-S,
// Kolmogorov 2006/2015): the problem is kept as a reparametrization -- node potentials
// θ'_v = U_v + Σ_e λ_ev and edge tables θ'_e(a,b) = B_e(a,b) - λ_eu(a) - λ_ev(b), the same energy
// for every labelling -- and LB = Σ_v min θ'_v + Σ_e min θ'_e is a lower bound for every λ. A pass
// visits the nodes in index order (then in reverse); at node v it moves each incident edge's
// min-marginal into θ'_v, then hands 1/max(in, out) of θ'_v to each edge towards a later node.
// Neither step lowers LB, so the bound only grows; it converges to the LP value on most problems.
// The min-marginals of a matrix with repeated rows or columns are taken over its distinct ones
// (matrix_classes.h: the same values, with 30% fewer entries read on LLaMA3-70B's 3-D meshes).
//
// Label fixing: in a pass, once node v has taken in every incident edge's min-marginal, every
// labelling with y_v = a costs at least bound_v(a) = LB + θ'_v(a) - min θ'_v (the other terms
// are at their minima); one last forward pass records these bounds (the TRW-S min-marginals, exact
// on trees). A label whose bound exceeds the cost of a known labelling is in no optimum. The known
// labelling is decoded from the same messages (nodes in index order, each taking the label
// cheapest against its labelled neighbours plus its later neighbours' messages) and improved by
// iterated conditional modes (ICM).
//
// Example: a chain a - b - c of 2-label nodes whose edges cost 0 on equal labels and 1 otherwise,
// with unaries a = (0, 5), b = c = (0, 0): LB reaches the optimum 0 (a tree: the LP is exact),
// the label bounds are the exact costs of the cheapest labelling with that label (a=1: 5, b=1: 1,
// c=1: 1), and the decoded labelling (0, 0, 0) costs 0, so every label 1 goes.

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "solve/engine/elimination.h"
#include "solve/problem.h"

namespace dtplan::solve::detail {

// The messages λ of a reparametrization: per edge, λ at its `from` end and at its `to` end (one
// value per label of that end's node). Any finite λ gives a valid bound; good ones give a high
// bound at once.
using EdgeMessages = std::vector<std::array<std::vector<double>, 2>>;

struct DualBound {
  // Every labelling costs at least this (memory rows ignored): the optimum's lower bound.
  double lower_bound_us = -std::numeric_limits<double>::infinity();
  // Per node and label: every labelling using that label costs at least this (+inf: none can).
  std::vector<std::vector<double>> label_bound_us;
  std::vector<LabelIndex> labels;  // the decoded and improved labelling (memory rows ignored)
  double upper_us = std::numeric_limits<double>::infinity();  // its cost
  std::int32_t passes = 0;                                    // forward-and-backward passes run
  EdgeMessages messages;  // the final λ (a reparametrization as good as the bound's)
};

// What dual_bound runs for and when it stops: after `max_passes`, when a pass raises LB by less
// than 1e-9 of its magnitude, when LB meets the upper bound, or at `deadline` (only then can the
// result depend on the clock).
struct DualBoundOptions {
  std::int32_t max_passes = 0;
  Clock::time_point deadline = Clock::time_point::max();
  // Only a labelling proven optimal is of use: also stop once the last pass's gain, repeated in
  // every pass left, would not close the gap to the labelling.
  bool tight_only = false;
  // When given (one entry per edge, each end sized like its node; non-finite values read as 0),
  // the λ the passes start from instead of 0: the messages of a similar problem converge in fewer
  // passes.
  const EdgeMessages* warm = nullptr;
  // Also stop once LB reaches this (the caller's labelling is then close enough).
  double enough_us = std::numeric_limits<double>::infinity();
  // > 0: also stop once LB is within this fraction of the cost of a decoded labelling that meets
  // the memory rows (the returned labels, unless a cheaper one that breaks a row was decoded after
  // it; the caller checks the gap on what it gets).
  double relative_gap = 0;
  // Also stop once the bound stalls: a labelling decoded, none cheaper in the last kStallPasses
  // passes, and the last pass's gain, repeated in every pass left, under kStallShare of the gap to
  // the labelling (the caller's windows make better use of the time than such passes).
  bool until_stalled = false;
};

// @pre validate(problem); followers and pins are ignored (simplify() has none left).
DualBound dual_bound(const Problem& problem, const DualBoundOptions& options);

// The least bound that shows a labelling costing `upper` within `relative_gap` of the optimum by
// the test cost - bound <= relative_gap · |cost|, rounding included: upper - relative_gap ·
// |upper|, raised by an ulp where the subtraction rounded it too low (for about half of all costs:
// a window at that threshold proving nothing cheaper then settled nothing, and the same window ran
// again until the time limit).
double gap_stop(double upper, double relative_gap);

// The slack against rounding of a cost or bound `x`, 1e-9 relative: 1e-9 * (|x| + 1). meets_bound
// allows it; the exact solver's filters add it to their thresholds, so that a point a rounding
// error could misjudge stays in and the search stays exact.
inline double rounding_slack(double x) { return 1e-9 * (std::fabs(x) + 1); }

// Whether a labelling costing `cost` meets the lower bound `bound`, so is optimal (to
// rounding_slack(bound)). A bound of -inf (an LP stopped by the time limit before its
// first pass) meets nothing: its slack would be +inf, and plans it "proved" were not optimal.
bool meets_bound(double cost, double bound);

// Pins keeping, on each node that loses a label, the labels whose bound is at most `upper_us`
// (plus a 1e-7 relative slack against rounding): every labelling costing at most `upper_us`, so
// every optimum when `upper_us` is the cost of a feasible labelling, survives them. At each
// position of a repeat group the labels kept in any block are kept in all (a superset, so still
// safe), so that the blocks stay alike and are still solved once.
std::vector<Pin> bound_pins(const DualBound& bound, double upper_us,
                            const std::vector<RepeatGroup>& repeats = {});

// How many labels (all nodes) have a bound of at most `upper_us` (the same slack as bound_pins):
// what a window at that threshold keeps, before bound_pins widens it over repeat blocks.
std::int64_t kept_labels(const DualBound& bound, double upper_us);

}  // namespace dtplan::solve::detail
