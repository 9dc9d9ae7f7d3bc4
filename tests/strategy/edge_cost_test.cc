#include "strategy/edge_cost.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>

#include "solve/problem.h"
#include "support/redist_support.h"
#include "support/selection_testing.h"
#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {

namespace {

const graph::TensorMeta kWeight{{64, 64}, core::DType::kBF16};
constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace

TEST_CASE("edge cost: equal placements are free, DTensor's impossible pairs are +inf") {
  auto coster = make_coster(context({2, 2}, {"dp", "tp"}, {{"dp", "tp"}}));
  CHECK(coster->cost_us(kWeight, pl("S(0),R"), pl("S(0),R")).value() == 0);
  CHECK(std::isinf(coster->cost_us(kWeight, pl("S(0),R"), pl("P(sum),R")).value()));
  CHECK(std::isinf(coster->cost_us(kWeight, pl("P(max),R"), pl("P(sum),R")).value()));
  CHECK(std::isinf(coster->cost_us(kWeight, pl("P(sum),R"), pl("P(avg),R")).value()));
  // Replicate -> P(sum) is a priced local op, the divide by the group size (PyTorch #172282);
  // Replicate -> P(max) keeps the values (an identity, docs/reference/placements.md §2 row 7):
  // free.
  CHECK(coster->cost_us(kWeight, pl("R,R"), pl("P(sum),R")).value() > 0);
  CHECK(coster->cost_us(kWeight, pl("R,R"), pl("P(max),R")).value() == 0);
  CHECK(coster->cost_us(kWeight, pl("R,R"), pl("S(0),R")).value() > 0);
  auto plan = coster->plan(kWeight, pl("S(0),R"), pl("P(sum),R"));
  REQUIRE_FALSE(plan.ok());
  CHECK(is_forbidden_pair(plan.error()));
}

TEST_CASE("edge cost: equals the planner's total and is memoised per spec pair") {
  auto ctx = context({2, 2}, {"dp", "tp"}, {{"dp", "tp"}});
  auto coster = make_coster(ctx);
  auto reference = dtplan::testing::make_planner(ctx, redist::CostModelKind::kNccl);
  const std::vector<Placements> all = leaf_options_of(kWeight.shape, {2, 2});
  std::size_t finite = 0;
  for (const Placements& a : all) {
    for (const Placements& b : all) {
      const double c = coster->cost_us(kWeight, a, b).value();
      if (a == b) {
        CHECK(c == 0);
        continue;
      }
      auto src = coster->spec(kWeight, a).value();
      auto dst = coster->spec(kWeight, b).value();
      auto p = reference->plan(src, dst, {redist::PlannerKind::kAuto, true});
      REQUIRE(p.ok());
      CHECK(c == (*p)->total_cost_us);
      ++finite;
    }
  }
  const std::size_t priced = coster->pairs_priced();
  CHECK(priced == finite);
  // A second pass is served from the memo.
  for (const Placements& a : all) {
    for (const Placements& b : all) (void)coster->cost_us(kWeight, a, b);
  }
  CHECK(coster->pairs_priced() == priced);
}

TEST_CASE("edge cost: a flattened mesh makes S(0),S(0) -> R,R one all_gather") {
  const graph::TensorMeta w{{4096, 4096}, core::DType::kBF16};
  auto flat = make_coster(context({8, 8}, {"dp", "tp"}, {{"dp", "tp"}}));
  auto plain = make_coster(context({8, 8}, {"dp", "tp"}));
  auto merged = flat->plan(w, pl("S(0),S(0)"), pl("R,R")).value();
  auto split = plain->plan(w, pl("S(0),S(0)"), pl("R,R")).value();
  CHECK(merged->comm_counts.all_gather == 1);
  CHECK(split->comm_counts.all_gather == 2);
  CHECK(merged->total_cost_us < split->total_cost_us);
  CHECK(split->warnings.size() == 1);
  // The dtensor model prices the same plan differently but still positively.
  auto dt =
      make_coster(context({8, 8}, {"dp", "tp"}, {{"dp", "tp"}}), redist::CostModelKind::kDTensor);
  const double d = dt->cost_us(w, pl("S(0),S(0)"), pl("R,R")).value();
  CHECK(d > 0);
  CHECK(d != merged->total_cost_us);
}

TEST_CASE("edge cost: matrices are memoised by key and match pairwise costs") {
  // Rows and columns repeat placements (strategies share them): each entry is still its pair's.
  auto coster = make_coster(context({2, 2}, {"dp", "tp"}, {{"dp", "tp"}}));
  const std::vector<Placements> from = pls({"S(0),R", "R,R", "P(sum),R", "R,R"});
  const std::vector<Placements> to = pls({"R,R", "S(1),R", "P(sum),S(0)", "S(1),R", "R,R"});
  const EdgeMatrixKey key{1, 0, 2, 1};
  EdgeMatrix m = coster->matrix(key, kWeight, from, to).value();
  REQUIRE(m->size() == from.size() * to.size());
  for (std::size_t j = 0; j < from.size(); ++j) {
    for (std::size_t o = 0; o < to.size(); ++o) {
      const double c = coster->cost_us(kWeight, from[j], to[o]).value();
      const double got = (*m)[j * to.size() + o];
      CHECK((got == c || (std::isinf(c) && std::isinf(got))));
    }
  }
  CHECK(coster->matrices_built() == 1);
  EdgeMatrix again = coster->matrix(key, kWeight, from, to).value();
  CHECK(again.get() == m.get());
  CHECK(coster->matrices_built() == 1);
}

TEST_CASE("edge cost: seeded bounds are below every seed plus its pair, and name a source") {
  // Repeated options keep their smallest seed; an infinite seed is no source; P(sum),S(0) is
  // reached only from the Partial option (Shard -> Partial is impossible).
  auto coster = make_coster(context({2, 2}, {"dp", "tp"}, {{"dp", "tp"}}));
  const std::vector<Placements> from = pls({"S(0),R", "R,R", "P(sum),R", "R,R", "S(1),S(0)"});
  const std::vector<double> seeds = {5.0, 40.0, 0.5, 2.0, kInfinity};
  const std::vector<Placements> to = pls({"R,R", "S(1),R", "P(sum),S(0)", "S(1),S(0)", "S(0),R"});
  const EdgeMatrixKey key{1, 0, 2, 1};
  const auto got = coster->seeded_cheapest(key, kWeight, from, seeds, to).value();
  CHECK(coster->pairs_priced() == 0);  // one search, no pair
  REQUIRE(got->value.size() == to.size());
  for (std::size_t o = 0; o < to.size(); ++o) {
    INFO("input " << o);
    double best = kInfinity;
    for (std::size_t j = 0; j < from.size(); ++j) {
      best = std::min(best, seeds[j] + coster->cost_us(kWeight, from[j], to[o]).value());
    }
    const std::int32_t j = got->from[o];
    REQUIRE(j >= 0);
    REQUIRE(j < 4);  // never the option with an infinite seed
    CHECK(j != 1);   // R,R at 40 loses to R,R at 2
    CHECK(got->value[o] >= seeds[static_cast<std::size_t>(j)]);
    CHECK(got->value[o] <= best + 1e-6);
  }
  CHECK(got->from[4] == 0);  // S(0),R is a source at 5, cheaper than any move into it
  CHECK(got->value[4] == 5.0);
  CHECK(got->from[2] == 2);  // only the Partial option reaches P(sum),S(0)
  CHECK(coster->memoised_seeded(key, seeds).get() == got.get());
  CHECK(coster->memoised_seeded(key, std::vector<double>{5.0, 40.0, 0.5, 2.0, 1.0}) == nullptr);
}

TEST_CASE("edge cost: seeded minima of a matrix") {
  const std::vector<double> m = {3, kInfinity, 1, 0, 7, kInfinity};  // 3 rows, 2 columns
  const SeededBounds b = seeded_minima(m, std::vector<double>{0, 2, 1}, 2);
  CHECK(b.value == std::vector<double>{3, 2});
  CHECK(b.from == std::vector<std::int32_t>{0, 1});
  const SeededBounds none = seeded_minima(m, std::vector<double>{kInfinity, kInfinity, 0}, 2);
  CHECK(none.value[0] == 7);
  CHECK(none.from == std::vector<std::int32_t>{2, -1});
  CHECK(std::isinf(none.value[1]));
}

TEST_CASE("edge cost: a matrix fails with its first failing pair's error, row by row") {
  // S(2) does not fit a 2-D tensor: its spec fails, but only where a plan is needed (a pair of
  // equal placements is free without one).
  auto coster = make_coster(context({2, 2}, {"dp", "tp"}, {{"dp", "tp"}}));
  const std::vector<Placements> from = pls({"R,R", "S(2),R", "S(0),R"});
  const std::vector<Placements> to = pls({"R,S(1)", "S(1),R", "R,S(5)"});
  const auto m = coster->matrix({1, 0, 2, 0}, kWeight, from, to);
  REQUIRE_FALSE(m.ok());
  const auto first = coster->cost_us(kWeight, from[0], to[2]);  // row 0's last column
  REQUIRE_FALSE(first.ok());
  CHECK(m.error().message == first.error().message);
  CHECK(m.error().kind == first.error().kind);
  const auto same = coster->matrix({2, 0, 2, 0}, kWeight, pls({"S(2),R"}), pls({"S(2),R"}));
  REQUIRE(same.ok());
  CHECK(*same.value() == std::vector<double>{0.0});
}

TEST_CASE("edge cost: helper planners price a matrix in parallel, to the same bits") {
  // Every placement of a 2-D tensor on 2x2 (R, S(0), S(1), P(sum) per dim): 16 x 16 pairs, over
  // a hundred of them planned, enough for three threads.
  std::vector<std::string> texts;
  for (const char* a : {"R", "S(0)", "S(1)", "P(sum)"}) {
    for (const char* b : {"R", "S(0)", "S(1)", "P(sum)"}) texts.push_back(std::string(a) + "," + b);
  }
  const std::vector<Placements> all = pls(texts);
  auto ctx = [] { return context({2, 2}, {"dp", "tp"}, {{"dp", "tp"}}); };
  auto alone = make_coster(ctx());
  std::vector<std::unique_ptr<redist::Planner>> helpers;
  helpers.push_back(dtplan::testing::make_planner(ctx(), redist::CostModelKind::kNccl));
  helpers.push_back(dtplan::testing::make_planner(ctx(), redist::CostModelKind::kNccl));
  EdgeCoster parallel(dtplan::testing::make_planner(ctx(), redist::CostModelKind::kNccl),
                      std::move(helpers));
  const EdgeMatrixKey key{1, 0, 1, 0};
  const EdgeMatrix one = alone->matrix(key, kWeight, all, all).value();
  const EdgeMatrix three = parallel.matrix(key, kWeight, all, all).value();
  CHECK(*one == *three);
  CHECK(parallel.pairs_priced() == alone->pairs_priced());
  CHECK(parallel.pairs_priced() >= 128);
}

}  // namespace dtplan::strategy::testing
