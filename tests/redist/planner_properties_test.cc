// Properties of the planners over random requests (fixed seeds): meshes of 1-4 dims with random
// flattened meshes, uneven shapes, nested and strided shards, non-default orders.
//   * every plan turns src into dst: an independent per-rank simulation of local shapes (sums
//     over gather groups, torch.chunk or strided splits for scatters, flat chunks over flattened
//     groups) ends at dst's local shape on every rank;
//   * merged and unmerged plans reach the same state, and check_plan accepts every plan;
//   * cost_uncached equals the plan's total, and costs_uncached of a whole row equals
//     cost_uncached of each of its pairs (errors included, past a tiny state limit too);
//   * min-cost total <= greedy total with its merge pass and <= greedy total without it (integer
//     picoseconds, same model and merge flag), as planner.h states; merged <= unmerged for
//     min-cost, and for greedy unless a merge_costs_more warning says why;
//   * the triangle inequality of min-cost totals for intermediates whose Partial ops and
//     StridedShards appear in the two ends;
//   * cost_lower_bounds from several sources is at most every pair's cost_uncached (0 where a
//     source is the target), and not vacuous; seeded, it is at most every seed plus its pair's
//     cost, at least its origin's seed, and it follows a source that reaches the target.

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "core/strings.h"
#include "placement/chunk.h"
#include "placement/local_shape.h"
#include "placement/placement_text.h"
#include "redist/planner.h"
#include "support/placement_specs.h"
#include "support/redist_support.h"

namespace dtplan::redist {
namespace {

using Ints = std::vector<std::int64_t>;
using Coord = std::vector<std::int64_t>;

std::int64_t ps(double us) { return std::llround(us * 1e6); }

struct Setup {
  testing::RandomRequest req;
  MeshContext ctx;
};

Setup random_setup(std::mt19937_64& rng, bool strided, bool shuffle) {
  testing::RandomRequest req = testing::random_request(rng, strided, shuffle);
  testing::Names names;
  for (std::size_t d = 0; d < req.mesh.size(); ++d) names.push_back("d" + std::to_string(d));
  const std::vector<testing::Names> flats = testing::random_flatten_sets(rng, names);
  return {req, testing::mesh_context(req.mesh, names, flats, testing::uniform(rng, 1, 8))};
}

RedistPlan must_plan(Planner& p, const placement::TensorSpec& a, const placement::TensorSpec& b,
                     PlanOptions o) {
  auto r = p.plan_uncached(a, b, o);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string() : r.error().message));
  REQUIRE(check_plan(*r).ok());
  return std::move(r).value();
}

TEST_CASE("planner properties: plans reach dst on every rank; min-cost <= greedy") {
  std::mt19937_64 rng(20260101);
  int greedy_cases = 0, cheaper = 0;
  for (int i = 0; i < 160; ++i) {
    Setup s = random_setup(rng, i % 3 == 0, i % 2 == 0);
    const CostModelKind kind = i % 4 == 0 ? CostModelKind::kDTensor : CostModelKind::kNccl;
    auto p = testing::make_planner(s.ctx, kind);
    INFO(s.req.describe() << " model " << cost_model_name(kind));
    std::map<std::pair<PlannerKind, bool>, RedistPlan> plans;
    for (PlannerKind planner : {PlannerKind::kGreedy, PlannerKind::kMinCost}) {
      if (planner == PlannerKind::kGreedy && needs_min_cost(s.req.src, s.req.dst)) continue;
      for (bool merge : {true, false}) {
        RedistPlan plan = must_plan(*p, s.req.src, s.req.dst, {planner, merge});
        INFO(planner_name(planner) << (merge ? " merged" : " unmerged") << ": " << plan.trace);
        CHECK(testing::check_rank_shapes(plan, s.req.mesh) == "");
        // The cost-only path (edge pricing) gives the plan's total to the bit.
        CHECK(p->cost_uncached(s.req.src, s.req.dst, {planner, merge}).value() ==
              plan.total_cost_us);
        plans.emplace(std::pair{planner, merge}, std::move(plan));
      }
    }
    const RedistPlan& exact = plans.at({PlannerKind::kMinCost, true});
    const RedistPlan& exact_unmerged = plans.at({PlannerKind::kMinCost, false});
    CHECK(equivalent(
        exact.steps.empty() ? exact.start : exact.steps.back().state,
        exact_unmerged.steps.empty() ? exact_unmerged.start : exact_unmerged.steps.back().state,
        s.req.mesh));
    CHECK(ps(exact.total_cost_us) <= ps(exact_unmerged.total_cost_us));
    if (auto g = plans.find({PlannerKind::kGreedy, true}); g != plans.end()) {
      ++greedy_cases;
      const RedistPlan& greedy_unmerged = plans.at({PlannerKind::kGreedy, false});
      CHECK(equivalent(g->second.steps.empty() ? g->second.start : g->second.steps.back().state,
                       greedy_unmerged.steps.empty() ? greedy_unmerged.start
                                                     : greedy_unmerged.steps.back().state,
                       s.req.mesh));
      CHECK(ps(exact.total_cost_us) <= ps(g->second.total_cost_us));
      CHECK(ps(exact.total_cost_us) <= ps(greedy_unmerged.total_cost_us));
      CHECK(ps(exact_unmerged.total_cost_us) <= ps(greedy_unmerged.total_cost_us));
      // Greedy merges unconditionally (as DTensor does): where that costs more, a warning says so.
      const bool noted =
          std::any_of(g->second.warnings.begin(), g->second.warnings.end(),
                      [](const Warning& w) { return w.reason == WarningReason::kMergeCostsMore; });
      if (ps(g->second.total_cost_us) > ps(greedy_unmerged.total_cost_us)) CHECK(noted);
      if (ps(exact.total_cost_us) < ps(g->second.total_cost_us)) ++cheaper;
    }
  }
  MESSAGE("greedy comparisons: " << greedy_cases << ", min-cost strictly cheaper: " << cheaper);
  CHECK(greedy_cases > 40);
}

// Requests that merge often: meshes of 2-3 dims (sizes 1-8, at most 64 ranks) with every pair of
// dims and all of them flattened, 1-8 GPUs per node, one tensor dim of up to about 2^20 elements
// (priced only), sources of P(sum), P(avg), S(0) and R, targets of R and S(0).
TEST_CASE("planner properties: merged <= unmerged per planner, or a note says why") {
  std::mt19937_64 rng(2828);
  const std::vector<std::string> kinds = {"P(sum)", "P(avg)", "S(0)", "R"};
  int merges = 0, losses = 0;
  for (int i = 0; i < 120; ++i) {
    Ints mesh(2 + static_cast<std::size_t>(i % 2));
    std::int64_t ranks = 65;
    while (ranks > 64) {
      ranks = 1;
      for (std::int64_t& m : mesh) ranks *= (m = testing::uniform(rng, 1, 8));
    }
    testing::Names names;
    for (std::size_t d = 0; d < mesh.size(); ++d) names.push_back("d" + std::to_string(d));
    std::vector<testing::Names> flats = {names};
    for (std::size_t a = 0; a + 1 < mesh.size() && mesh.size() > 2; ++a) {
      for (std::size_t b = a + 1; b < mesh.size(); ++b) flats.push_back({names[a], names[b]});
    }
    auto p = testing::make_planner(
        testing::mesh_context(mesh, names, flats, testing::uniform(rng, 1, 8)),
        i % 4 == 0 ? CostModelKind::kDTensor : CostModelKind::kNccl);
    std::string src, dst;
    for (std::size_t d = 0; d < mesh.size(); ++d) {
      src += (d > 0 ? "," : "") + kinds[static_cast<std::size_t>(testing::uniform(rng, 0, 3))];
      dst += (d > 0 ? "," : "") + kinds[static_cast<std::size_t>(testing::uniform(rng, 2, 3))];
    }
    // Every other length a multiple of 6720 = 2^6 * 3 * 5 * 7 (even over most groups).
    const bool even = i % 4 < 2;
    const std::int64_t most = std::int64_t{1} << testing::uniform(rng, 0, even ? 7 : 20);
    const Ints shape = {(even ? 6720 : 1) * testing::uniform(rng, 1, most)};
    const placement::TensorSpec a = testing::spec_of(shape, src, mesh);
    const placement::TensorSpec b = testing::spec_of(shape, dst, mesh);
    for (PlannerKind kind : {PlannerKind::kGreedy, PlannerKind::kMinCost}) {
      const RedistPlan merged = must_plan(*p, a, b, {kind, true});
      const RedistPlan apart = must_plan(*p, a, b, {kind, false});
      INFO(planner_name(kind) << " " << src << " -> " << dst << " " << shape[0] << ": "
                              << merged.trace << " vs " << apart.trace);
      merges += merged.steps.size() < apart.steps.size() ? 1 : 0;
      if (ps(merged.total_cost_us) <= ps(apart.total_cost_us)) continue;
      ++losses;
      CHECK(kind == PlannerKind::kGreedy);
      CHECK(std::any_of(merged.warnings.begin(), merged.warnings.end(), [](const Warning& w) {
        return w.reason == WarningReason::kMergeCostsMore;
      }));
    }
  }
  MESSAGE("merged plans " << merges << ", greedy merges at a loss " << losses);
  CHECK(losses > 0);  // the note was put to the test
}

TEST_CASE("planner properties: triangle inequality of min-cost totals") {
  std::mt19937_64 rng(4242);
  int checked = 0;
  for (int i = 0; i < 80; ++i) {
    Setup s = random_setup(rng, i % 2 == 0, true);
    auto p =
        testing::make_planner(s.ctx, i % 3 == 0 ? CostModelKind::kDTensor : CostModelKind::kNccl);
    // The intermediate: a third random spec on the same mesh and shape.
    testing::RandomRequest other = testing::random_request(rng, i % 2 == 0, true);
    auto mid =
        placement::TensorSpec::make(s.req.src.shape(), s.req.src.dtype(), other.dst.placements(),
                                    s.req.mesh, other.dst.shard_order());
    if (!mid.ok() || other.mesh.size() != s.req.mesh.size()) continue;
    const placement::TensorSpec b = testing::supported_dst(s.req.src, *mid, s.req.mesh);
    const placement::TensorSpec c = testing::supported_dst(b, s.req.dst, s.req.mesh);
    // B's Partial ops and StridedShards (as planned: after decoding) must appear in A or C.
    const RedistState ea = plan_endpoint(s.req.src, s.req.mesh);
    const RedistState eb = plan_endpoint(b, s.req.mesh);
    const RedistState ec = plan_endpoint(c, s.req.mesh);
    bool covered = true;
    for (const placement::Placement& x : eb.placements) {
      if (!x.is_partial() && !x.is_strided_shard()) continue;
      bool found = false;
      for (const RedistState* e : {&ea, &ec}) {
        for (const placement::Placement& y : e->placements) found = found || y == x;
      }
      covered = covered && found;
    }
    if (!covered) continue;
    for (bool merge : {true, false}) {
      const PlanOptions o{PlannerKind::kMinCost, merge};
      const RedistPlan ab = must_plan(*p, s.req.src, b, o);
      const RedistPlan bc = must_plan(*p, b, c, o);
      const RedistPlan ac = must_plan(*p, s.req.src, c, o);
      INFO(ab.trace << " | " << bc.trace << " | " << ac.trace);
      CHECK(ps(ac.total_cost_us) <= ps(ab.total_cost_us) + ps(bc.total_cost_us));
      ++checked;
    }
  }
  MESSAGE("triangles checked: " << checked);
  CHECK(checked > 20);
}

// A row of targets for one source: every R/P(sum)/S(t) combination on the mesh (capped), plus
// the random request's own dst and other random requests' placements on the same mesh and shape
// (StridedShards, nested orders), each made supported from src.
std::vector<placement::TensorSpec> random_row(std::mt19937_64& rng, const Setup& s) {
  std::vector<placement::TensorSpec> row = {s.req.dst};
  const auto basic = testing::basic_placements(static_cast<int>(s.req.src.shape().size()));
  const std::size_t ndim = s.req.mesh.size();
  std::size_t combos = 1;
  for (std::size_t m = 0; m < ndim; ++m) combos *= basic.size();
  for (std::size_t c = 0; c < std::min<std::size_t>(combos, 200); ++c) {
    std::vector<placement::Placement> pl;
    for (std::size_t m = 0, rest = c; m < ndim; ++m, rest /= basic.size()) {
      pl.push_back(basic[rest % basic.size()]);
    }
    auto spec = placement::TensorSpec::make(s.req.src.shape(), s.req.src.dtype(), pl, s.req.mesh);
    if (spec.ok()) row.push_back(testing::supported_dst(s.req.src, *spec, s.req.mesh));
  }
  for (int k = 0; k < 40; ++k) {
    testing::RandomRequest other = testing::random_request(rng, k % 2 == 0, true);
    if (other.mesh.size() != ndim) continue;
    auto spec =
        placement::TensorSpec::make(s.req.src.shape(), s.req.src.dtype(), other.dst.placements(),
                                    s.req.mesh, other.dst.shard_order());
    if (spec.ok()) row.push_back(testing::supported_dst(s.req.src, *spec, s.req.mesh));
  }
  return row;
}

// Case i of a row test: a random request (strided every other case), its cost model (dtensor
// every third), two planners on its mesh and a row of targets for its source.
struct RowCase {
  Setup s;
  CostModelKind kind;
  std::unique_ptr<Planner> first;
  std::unique_ptr<Planner> second;
  std::vector<placement::TensorSpec> row;
  std::vector<const placement::TensorSpec*> dsts;
};

RowCase row_case(std::mt19937_64& rng, int i) {
  Setup s = random_setup(rng, i % 2 == 0, true);
  const CostModelKind kind = i % 3 == 0 ? CostModelKind::kDTensor : CostModelKind::kNccl;
  auto first = testing::make_planner(s.ctx, kind);
  auto second = testing::make_planner(s.ctx, kind);
  std::vector<placement::TensorSpec> row = random_row(rng, s);
  RowCase c{std::move(s), kind, std::move(first), std::move(second), std::move(row), {}};
  for (const placement::TensorSpec& d : c.row) c.dsts.push_back(&d);
  return c;
}

TEST_CASE("planner properties: a row priced at once equals its pairs priced alone") {
  std::mt19937_64 rng(777);
  std::int64_t compared = 0, searched = 0, failed = 0;
  for (int i = 0; i < 24; ++i) {
    const RowCase c = row_case(rng, i);
    const Setup& s = c.s;
    const CostModelKind kind = c.kind;
    Planner* batch = c.first.get();
    Planner* single = c.second.get();
    const std::vector<placement::TensorSpec>& row = c.row;
    const std::vector<const placement::TensorSpec*>& dsts = c.dsts;
    INFO(s.req.describe() << " model " << cost_model_name(kind));
    // A tiny state limit sends targets past it to their own A* search (which may fit).
    for (std::size_t max_states : {std::size_t{1} << 19, std::size_t{12}}) {
      for (PlannerKind planner :
           {PlannerKind::kAuto, PlannerKind::kMinCost, PlannerKind::kGreedy}) {
        for (bool merge : {true, false}) {
          const PlanOptions o{planner, merge, max_states};
          const auto costs = batch->costs_uncached(s.req.src, dsts, o);
          REQUIRE(costs.size() == row.size());
          for (std::size_t k = 0; k < row.size(); ++k) {
            const auto one = single->cost_uncached(s.req.src, row[k], o);
            INFO(planner_name(planner)
                 << (merge ? " merged" : " unmerged") << " max_states " << max_states << ": "
                 << to_string(s.req.src) << " -> " << to_string(row[k]));
            REQUIRE(costs[k].ok() == one.ok());
            if (one.ok()) {
              CHECK(*costs[k] == *one);
            } else {
              CHECK(costs[k].error().kind == one.error().kind);
              CHECK(costs[k].error().message == one.error().message);
              ++failed;
            }
            searched += planner != PlannerKind::kGreedy && needs_min_cost(s.req.src, row[k]);
            ++compared;
          }
        }
      }
    }
  }
  MESSAGE("pairs compared: " << compared << ", searched: " << searched << ", errors: " << failed);
  CHECK(searched > 2000);
  CHECK(failed > 0);
}

TEST_CASE("planner properties: lower bounds from several sources are at most every pair's cost") {
  std::mt19937_64 rng(4242);
  std::int64_t checked = 0, positive = 0, tight = 0;
  for (int i = 0; i < 16; ++i) {
    const RowCase c = row_case(rng, i);
    const std::vector<placement::TensorSpec>& row = c.row;
    Planner* bounds = c.first.get();
    Planner* exact = c.second.get();
    // Sources: the request's src and two of the row's layouts (targets equal to them cost 0).
    const std::vector<const placement::TensorSpec*> srcs = {&c.s.req.src, &row[row.size() / 3],
                                                            &row.back()};
    const std::vector<const placement::TensorSpec*>& dsts = c.dsts;
    INFO(c.s.req.describe() << " model " << cost_model_name(c.kind));
    for (bool merge : {true, false}) {
      const PlanOptions o{PlannerKind::kAuto, merge};
      const auto lower = bounds->cost_lower_bounds(srcs, dsts, o);
      REQUIRE_MESSAGE(lower.ok(), (lower.ok() ? std::string() : lower.error().message));
      REQUIRE(lower->size() == row.size());
      for (std::size_t k = 0; k < row.size(); ++k) {
        double best = std::numeric_limits<double>::infinity();
        for (const placement::TensorSpec* src : srcs) {
          if (*src == row[k]) best = 0;
          const auto cost = exact->cost_uncached(*src, row[k], o);
          if (cost.ok()) best = std::min(best, *cost);
        }
        INFO((merge ? "merged " : "unmerged ") << to_string(row[k]));
        CHECK((*lower)[k] >= 0);
        if (std::isfinite(best)) CHECK(ps((*lower)[k]) <= ps(best));
        if (best == 0) CHECK((*lower)[k] == 0);
        ++checked;
        positive += (*lower)[k] > 0;
        tight += std::isfinite(best) && best > 0 && ps((*lower)[k]) == ps(best);
      }
    }
  }
  MESSAGE("targets checked: " << checked << ", bounded above 0: " << positive
                              << ", equal to the cheapest pair: " << tight);
  CHECK(positive > checked / 4);  // the bounds are not vacuous
  CHECK(tight > 0);
}

TEST_CASE("planner properties: seeded lower bounds and their origins") {
  std::mt19937_64 rng(4343);
  std::int64_t checked = 0, moved = 0;
  for (int i = 0; i < 16; ++i) {
    const RowCase c = row_case(rng, i);
    const std::vector<placement::TensorSpec>& row = c.row;
    const std::vector<const placement::TensorSpec*> srcs = {&c.s.req.src, &row[row.size() / 3],
                                                            &row.back()};
    // Seeds (µs) from 0 up to a few collectives' worth, so that a dearer start can lose.
    std::vector<double> seeds;
    for (std::size_t j = 0; j < srcs.size(); ++j) {
      seeds.push_back(std::uniform_int_distribution<int>(0, 400)(rng) / 4.0);
    }
    INFO(c.s.req.describe() << " model " << cost_model_name(c.kind));
    for (bool merge : {true, false}) {
      const PlanOptions o{PlannerKind::kAuto, merge};
      std::vector<std::int32_t> origins;
      const auto lower = c.first->cost_lower_bounds(srcs, c.dsts, o, seeds, &origins);
      REQUIRE_MESSAGE(lower.ok(), (lower.ok() ? std::string() : lower.error().message));
      REQUIRE(origins.size() == row.size());
      for (std::size_t k = 0; k < row.size(); ++k) {
        INFO((merge ? "merged " : "unmerged ") << to_string(row[k]));
        double best = std::numeric_limits<double>::infinity();
        for (std::size_t j = 0; j < srcs.size(); ++j) {
          const auto cost = *srcs[j] == row[k] ? core::Result<double>(0.0)
                                               : c.second->cost_uncached(*srcs[j], row[k], o);
          if (cost.ok()) best = std::min(best, seeds[j] + *cost);
        }
        const std::int32_t from = origins[k];
        if (from < 0) {  // no source reaches it: no pair can be priced either
          CHECK_FALSE(std::isfinite(best));
          continue;
        }
        REQUIRE(from < static_cast<std::int32_t>(srcs.size()));
        CHECK(ps((*lower)[k]) >= ps(seeds[static_cast<std::size_t>(from)]));
        if (std::isfinite(best)) CHECK(ps((*lower)[k]) <= ps(best));
        ++checked;
        moved += ps((*lower)[k]) > ps(seeds[static_cast<std::size_t>(from)]);
      }
    }
  }
  MESSAGE("targets checked: " << checked << ", above their origin's seed: " << moved);
  CHECK(moved > checked / 4);  // the bounds add redistributions to the seeds
}

}  // namespace
}  // namespace dtplan::redist
