// Memory rows priced into the unaries: the header's example, the priced LP bound against
// exhaustive search, when a lean decoding counts in the rate search, and the rate search on a
// short chain against the long chain's optimum.

#include "solve/memory/memory_price.h"

#include <doctest/doctest.h>

#include <cmath>

#include "solve/evaluate.h"
#include "solve/generate.h"
#include "solve/solver.h"
#include "solve/stack/short_chain.h"
#include "support/brute_force.h"
#include "support/solve_examples.h"

namespace dtplan::solve::detail {
namespace {

constexpr auto kNoDeadline = Clock::time_point::max();

TEST_CASE("memory price: the header's example") {
  Problem p;
  p.nodes = {{"w", {0, 10}}};
  p.memory = {{"bytes", {{0, {8, 2}}}, 0, 4}};
  const Problem before = p;
  CHECK(excess_bytes(p.memory, {0}) == 4);
  CHECK(excess_bytes(p.memory, {1}) == 0);
  auto saved = price_memory(p, {1});
  CHECK(p.nodes[0].cost_us == std::vector<double>{8, 12});
  restore_unaries(p, std::move(saved));
  CHECK(p == before);
  saved = price_memory(p, {4});
  CHECK(p.nodes[0].cost_us == std::vector<double>{32, 18});
  const DualBound d = dual_bound(p, {.max_passes = 10, .deadline = kNoDeadline});
  restore_unaries(p, std::move(saved));
  CHECK(price_shift(p.memory, {4}) == 16);
  CHECK(d.lower_bound_us - price_shift(p.memory, {4}) == 2);  // <= 10, the optimum
  // Per copy: a short node standing for 2 long nodes is priced at half the rate.
  saved = price_memory(p, {4}, {2});
  CHECK(p.nodes[0].cost_us == std::vector<double>{16, 14});
  restore_unaries(p, std::move(saved));
  CHECK(copies_of({0, 1, 1, 1, 2}, 4) == std::vector<double>{1, 3, 1, 1});
}

TEST_CASE("memory price: a lean decoding counts where the cheap plan is no longer nearly optimal") {
  // Priced costs: label 0 (over the budget) 100 us, label 1 (within it) 130 us. An LP bound of
  // 99 with the lean decoding at 130: label 0 is 1 us above the bound, within a quarter of the
  // lean plan's 31 (7.75): the rate is still below the switch. Label 0 at 120 us is 21 us above
  // it: the lean decoding counts.
  Problem p;
  p.nodes = {{"w", {100, 130}}};
  DualBound d;
  d.lower_bound_us = 99;
  d.upper_us = 130;
  d.labels = {1};
  CHECK_FALSE(lean_decoding_counts(p, {0}, d));
  p.nodes[0].cost_us[0] = 120;
  CHECK(lean_decoding_counts(p, {0}, d));
  // At the boundary: 99 + 31/4 = 106.75 does not count, a little above it does.
  p.nodes[0].cost_us[0] = 106.75;
  CHECK_FALSE(lean_decoding_counts(p, {0}, d));
  p.nodes[0].cost_us[0] = 106.875;
  CHECK(lean_decoding_counts(p, {0}, d));
}

TEST_CASE("memory price: the memory-priced bound holds for every labelling meeting the rows") {
  // Random problems with memory rows whose LP labelling breaks one, the incumbent their optimum:
  // the priced bound and each label's priced bound are at most the cheapest labelling meeting
  // the rows (with that label), brute force; on some the priced bound beats the plain one.
  int higher = 0, priced = 0;
  for (Shape shape : {Shape::kChain, Shape::kGrid}) {
    for (std::uint64_t seed = 1; seed <= 24; ++seed) {
      Problem p = random_problem({.shape = shape,
                                  .nodes = 7,
                                  .min_labels = 2,
                                  .max_labels = 4,
                                  .memory_rows = 1 + static_cast<std::int32_t>(seed % 2),
                                  .seed = seed});
      CAPTURE(static_cast<int>(shape));
      CAPTURE(seed);
      const testing::BruteForceResult best = testing::brute_force(p);
      if (!best.feasible) continue;
      const DualBound d = dual_bound(p, {.max_passes = 100, .deadline = kNoDeadline});
      const Problem before = p;
      const auto m = memory_priced_bound(p, d, best.objective_us, kNoDeadline);
      CHECK(p == before);  // priced in place, restored
      if (!m) continue;
      ++priced;
      const double tol = 1e-9 * (std::fabs(best.objective_us) + 1);
      CHECK(m->lower_bound_us <= best.objective_us + tol);
      if (m->lower_bound_us > d.lower_bound_us + tol) ++higher;
      for (std::size_t v = 0; v < p.nodes.size(); ++v) {
        for (std::size_t a = 0; a < p.nodes[v].cost_us.size(); ++a) {
          Problem one = p;
          one.pins.push_back({static_cast<NodeIndex>(v), {static_cast<LabelIndex>(a)}});
          const testing::BruteForceResult with = testing::brute_force(one);
          if (with.feasible) CHECK(m->label_bound_us[v][a] <= with.objective_us + tol);
        }
      }
    }
  }
  CHECK(priced > 0);
  CHECK(higher > 0);
}

TEST_CASE("memory price: the rate search brackets the budget, its bound below the optimum") {
  // Long chains whose optimum without the memory row breaks it: on the short chain, the search
  // ends with a labelling over the budget and one within it, whose lengthening meets the long
  // row; the long chain's LP priced at the rate found, shifted back, bounds the long optimum
  // with the row (the exact solver's, proven), and the lengthening costs at least that optimum.
  int searched = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    CAPTURE(seed);
    Problem p = layered_problem({.layers = 6,
                                 .nodes_per_layer = 16,
                                 .memory_row = true,
                                 .memory_budget = 0.15,
                                 .integer_costs = true,
                                 .seed = seed});
    auto chain = short_chain(p);
    REQUIRE(chain.has_value());
    const Solution free = testing::plain_optimum(chain->problem, false);
    if (meets_memory(chain->problem.memory, free.labels)) continue;
    ++searched;
    const double excess = excess_bytes(chain->problem.memory, free.labels);
    const auto search = search_rate(
        chain->problem, copies_of(chain->source, chain->problem.nodes.size()), free.labels, {},
        1e-3 * (std::fabs(free.objective_us) + 1) / excess, kNoDeadline);
    REQUIRE_FALSE(search.under.empty());
    CHECK_FALSE(meets_memory(chain->problem.memory, search.over));
    CHECK(meets_memory(chain->problem.memory, search.under));
    CHECK(meets_memory(p.memory, lengthen(*chain, search.under)));
    REQUIRE(search.rate.size() == 1);
    CHECK(search.rate[0] > 0);
    const Solution best = testing::plain_optimum(p);
    auto saved = price_memory(p, search.rate);
    const DualBound d = dual_bound(p, {.max_passes = 200, .deadline = kNoDeadline});
    restore_unaries(p, std::move(saved));
    const double tol = 1e-9 * (std::fabs(best.objective_us) + 1);
    CHECK(d.lower_bound_us - price_shift(p.memory, search.rate) <= best.objective_us + tol);
    const auto lengthened = evaluate(p, lengthen(*chain, search.under));
    REQUIRE(lengthened.ok());
    CHECK(lengthened->feasible());
    CHECK(lengthened->total_us >= best.objective_us - tol);
  }
  CHECK(searched >= 2);
}

}  // namespace
}  // namespace dtplan::solve::detail
