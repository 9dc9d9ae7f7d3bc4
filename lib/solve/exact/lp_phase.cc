// The LP bound phase of the exact solver's bound fixing (lp_phase.h).

#include "solve/exact/lp_phase.h"

#include <algorithm>

#include "solve/memory/memory_price.h"

namespace dtplan::solve::detail {

namespace {

constexpr std::int32_t kBoundPasses = 60;
constexpr std::int32_t kMaxBoundPasses = 1000;
constexpr double kBoundWork = 3e9;

}  // namespace

BoundUse bound_use(const SolveOptions& options, const Problem& problem) {
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

std::int32_t bound_passes(const Problem& problem, bool windows) {
  if (!windows) return kBoundPasses;
  double entries = 1;
  for (const Edge& e : problem.edges) entries += static_cast<double>(e.cost_us.size());
  const double passes =
      std::clamp(kBoundWork / entries, double{kBoundPasses}, double{kMaxBoundPasses});
  return static_cast<std::int32_t>(passes);
}

DualBound lp_bound(Problem& problem, const Answer& a, const SolveOptions& options,
                   const EngineOptions& eo, BoundUse use,
                   const std::optional<ShortChainStart>& start, SolverStats& stats) {
  double enough = kForbidden;
  if (!a.labels.empty()) {
    const double c = a.cost_us;
    enough = std::min(gap_stop(c, options.relative_gap), c - rounding_slack(c) / 2);
  }
  DualBoundOptions lp{.max_passes = bound_passes(problem, use == BoundUse::kWindows),
                      .deadline = eo.limits.deadline,
                      .tight_only = use == BoundUse::kTightOnly,
                      .warm = start ? &start->messages : nullptr,
                      .enough_us = enough,
                      .relative_gap = options.relative_gap,
                      .until_stalled = true};
  if (!start || start->rate.empty()) return dual_bound(problem, lp);
  DualBound d = priced_dual_bound(problem, start->rate, lp);
  stats.priced_passes = d.passes;
  return d;
}

}  // namespace dtplan::solve::detail
