#include "strategy/greedy_select.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "support/selection_testing.h"
#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {

TEST_CASE("greedy selection: P(max) x R on a 3-D mesh picks R,R,R, not the P(sum) detour") {
  // Issue 5 / PyTorch #172282: with Replicate -> Partial free, [P(sum); R, P(sum)] (all-reduce a
  // to R, partition b) tied with plain Replicate and could win on order. Here R -> P is priced.
  const std::vector<std::int64_t> mesh = {2, 2, 2};
  const OpStrategy mul = run_op(OpKind::kMul, {f32({8, 8}), f32({8, 8})}, {}, mesh);
  auto coster = make_coster(context(mesh, {"a", "b", "c"}));
  const std::vector<PlacedInput> inputs = {{f32({8, 8}), pl("P(max),P(max),P(max)")},
                                           {f32({8, 8}), pl("R,R,R")}};
  const StrategyChoice choice = select_strategy(mul, inputs, *coster).value();
  CHECK(format_strategy(mul.strategies[static_cast<std::size_t>(choice.index)]) ==
        "R,R,R <- R,R,R; R,R,R");
  const std::int32_t detour =
      strategy_index(mul, "P(sum),P(sum),P(sum) <- R,R,R; P(sum),P(sum),P(sum)");
  REQUIRE(detour >= 0);
  const double partition =
      coster->cost_us(f32({8, 8}), pl("R,R,R"), pl("P(sum),P(sum),P(sum)")).value();
  CHECK(partition > 0);
  // The detour pays exactly the partition more (same all-reduce of a, same local compute).
  CHECK(choice.costs_us[static_cast<std::size_t>(detour)] ==
        doctest::Approx(choice.cost_us + partition));
}

TEST_CASE("greedy selection: cheapest compute + redistribution, lowest index on ties") {
  std::mt19937_64 rng(20240611);
  const std::vector<std::int64_t> mesh = {2, 2};
  auto coster = make_coster(context(mesh, {"dp", "tp"}, {{"dp", "tp"}}));
  const std::vector<Placements> options = {pl("R,R"),         pl("S(0),R"),    pl("R,S(1)"),
                                           pl("S(0),S(1)"),   pl("P(sum),R"),  pl("R,P(sum)"),
                                           pl("P(sum),S(0)"), pl("S(1),S(0)"), pl("P(max),R")};
  struct Case {
    OpKind kind;
    int inputs;
  };
  const Case cases[] = {{OpKind::kNeg, 1}, {OpKind::kAdd, 2}, {OpKind::kMul, 2}};
  int ties = 0;
  for (int round = 0; round < 60; ++round) {
    const Case& c = cases[rng() % 3];
    std::vector<graph::TensorMeta> metas(static_cast<std::size_t>(c.inputs), f32({8, 8}));
    const OpStrategy op = run_op(c.kind, metas, {}, mesh);
    std::vector<PlacedInput> in;
    for (int i = 0; i < c.inputs; ++i) in.push_back({f32({8, 8}), options[rng() % options.size()]});
    auto choice = select_strategy(op, in, *coster);
    REQUIRE(choice.ok());
    REQUIRE(choice->costs_us.size() == op.size());
    double best = INFINITY;
    std::int32_t first = -1;
    int at_best = 0;
    for (std::size_t k = 0; k < op.size(); ++k) {
      const Strategy& s = op.strategies[k];
      double expect = s.compute_us;
      for (std::size_t slot = 0; slot < in.size(); ++slot) {
        expect += coster->cost_us(in[slot].meta, in[slot].placements, s.inputs[slot]).value();
      }
      CHECK((choice->costs_us[k] == expect ||
             (std::isinf(expect) && std::isinf(choice->costs_us[k]))));
      if (expect < best) {
        best = expect;
        first = static_cast<std::int32_t>(k);
        at_best = 1;
      } else if (expect == best) {
        ++at_best;
      }
    }
    CHECK(choice->index == first);
    CHECK(choice->cost_us == best);
    ties += at_best > 1 ? 1 : 0;
  }
  CHECK(ties > 0);  // the domain has equal-cost choices, decided by index
}

TEST_CASE("greedy selection: no finite strategy is an error naming the inputs") {
  // An op whose only strategy expects a Partial input cannot take a sharded one (S -> P).
  const std::vector<std::int64_t> mesh = {2};
  OpStrategy op;
  op.rule = Rule::kPointwise;
  Strategy s;
  s.outputs = {pl("P(sum)")};
  s.inputs = {pl("P(sum)")};
  s.local_output_shapes = {{8, 8}};
  op.strategies.push_back(s);
  auto coster = make_coster(context(mesh, {"dp"}));
  const std::vector<PlacedInput> in = {{f32({8, 8}), pl("S(0)")}};
  auto choice = select_strategy(op, in, *coster);
  REQUIRE_FALSE(choice.ok());
  CHECK(choice.error().kind == core::ErrorKind::kUnsupported);
  CHECK(choice.error().message.find("S(0)") != std::string::npos);
}

}  // namespace dtplan::strategy::testing
