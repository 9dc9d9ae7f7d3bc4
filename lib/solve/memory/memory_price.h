#pragma once
// Internal to lib/solve: memory rows priced into the unaries (a Lagrangian relaxation), and the
// search for the price at which a long chain's plan starts to meet them.
//
// Pricing: row r at rate μ_r (µs per byte) adds μ_r · bytes_r(l) to label l's unary, so every
// labelling's priced cost is its cost plus Σ_r μ_r · bytes_r; every labelling that meets the rows
// (bytes_r <= high_r) costs at least the priced problem's LP bound less Σ_r μ_r · high_r.
//
// Rate search, on a short chain (short_chain.h): its memory rows count each middle-block node once
// per long node that copies it, so its labellings meet them exactly when their lengthenings meet
// the long rows; priced per copy (the folded bytes over the copies), its LP trades cost for bytes
// at the long chain's rate. Starting from a labelling that breaks a row, the rate grows x4 until
// the LP's decoded labelling meets every row (20 passes per rate, each from the last rate's
// messages), then bisects to within 1/1024: the last labellings on either side are a cheap plan
// over the budget and a lean one within it, and the rate between them is near the best of the
// Lagrangian dual (the exact solver prices the long LP at that rate and offers the two plans,
// mixed layer by layer: on memory-bound stacks, the unpriced LP bound is far below any plan that
// meets the budget). While the rate grows, a lean decoding counts only as lean_decoding_counts
// says: 20 passes after a x4 step can leave the LP far from converged and its decoding a poor
// lean plan at a rate where the cheap plan is still nearly optimal (the search then closes in on
// a fraction of the switch rate, and the long LP priced there stays well below its incumbent).
//
// Example: one row, a node whose labels cost (0, 10) µs and take (8, 2) bytes, high 4: at rate 1
// the priced unaries are (8, 12) (label 0 still, 8 bytes: over), at rate 4 (32, 18): label 1
// meets the row; the bound at rate 4 is 18 - 16 = 2 <= 10, the optimum.

#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "solve/lp/dual_bound.h"
#include "solve/problem.h"

namespace dtplan::solve::detail {

// Adds Σ_r rate[r] · bytes_r(l) / copies[v] to each unary (copies empty: 1 for every node; rate
// empty: none) and returns the unaries it changed (node, costs before) for restore_unaries.
using SavedUnaries = std::vector<std::pair<NodeIndex, std::vector<double>>>;
SavedUnaries price_memory(Problem& problem, const std::vector<double>& rate,
                          const std::vector<double>& copies = {});
void restore_unaries(Problem& problem, SavedUnaries saved);

// Σ_r rate[r] · high_r: what the priced LP bound exceeds the bound on labellings meeting the rows.
double price_shift(const std::vector<MemoryRow>& rows, const std::vector<double>& rate);

// The bytes of `labels` over the rows' high bounds (0 within them), summed over the rows.
double excess_bytes(const std::vector<MemoryRow>& rows, const std::vector<LabelIndex>& labels);

// Per node of the short chain: how many long nodes copy it (ShortChain::source).
std::vector<double> copies_of(const std::vector<NodeIndex>& source, std::size_t short_nodes);

// dual_bound (dual_bound.h) of `problem` with its rows priced at `rate`, shifted back by
// price_shift: lower_bound_us and label_bound_us bound the labellings meeting the rows (label by
// label); labels are the priced problem's decoding, upper_us its priced cost less the shift;
// `options` as dual_bound's, with enough_us unshifted and relative_gap unused (the rows' cost is
// not the priced problem's). The unaries are priced in place and restored.
DualBound priced_dual_bound(Problem& problem, const std::vector<double>& rate,
                            const DualBoundOptions& options);

// The LP bound of `problem` with its memory rows priced in (a Lagrangian relaxation): every
// labelling that meets row r (bytes <= high_r) costs at least LP(U + Σ_r μ_r bytes_r) - Σ_r μ_r
// high_r, for any μ >= 0, and so does, label by label, every such labelling using that label
// (the returned lower_bound_us and label_bound_us hold these; labels and upper_us are the priced
// problem's). μ_r is the rate the incumbent paid for meeting the rows: (incumbent_us - d.upper_us)
// / (the bytes of d's labelling over high_r), for each row d's labelling breaks. At most 3
// passes, from d's messages (passes over a long stack are slow, and more of them raise this bound
// little). nullopt when d has no labelling, or it breaks no row, or no rate is positive.
// The unaries are priced in place for the passes and restored.
// @pre d = dual_bound(problem, ...).
std::optional<DualBound> memory_priced_bound(Problem& problem, const DualBound& d,
                                             double incumbent_us, Clock::time_point deadline);

// Whether d's decoded labelling (meeting the rows, cost d.upper_us at the priced problem's costs)
// shows the rate at or above the switch to lean plans: not where `over`, a plan over the budget,
// costs at `priced`'s costs within a quarter of that labelling's distance from the LP bound
// d.lower_bound_us (the cheap plan is then still nearly optimal there, the lean one poor).
bool lean_decoding_counts(const Problem& priced, const std::vector<LabelIndex>& over,
                          const DualBound& d);

struct RateSearch {
  std::vector<double> rate;      // per row: between the last rates that broke and met the rows
  std::vector<LabelIndex> over;  // decoded at the highest rate tried that breaks a row
  // Decoded at the lowest rate tried where a plan meeting every row counts (while the rate
  // grows, lean_decoding_counts), else the first such plan decoded.
  std::vector<LabelIndex> under;
  EdgeMessages messages;  // the priced LP's messages at the last rate tried
};

// @pre problem.memory holds the rows (folded, for a short chain); `start` breaks one of them;
// start_rate > 0. Stops at `deadline` with what it has (`under` empty: no rate met the rows).
RateSearch search_rate(Problem problem, const std::vector<double>& copies,
                       const std::vector<LabelIndex>& start, const EdgeMessages& messages,
                       double start_rate, Clock::time_point deadline);

}  // namespace dtplan::solve::detail
