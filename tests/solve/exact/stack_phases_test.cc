// The exact solver's phases for long stacks, on problems whose optima are known by hand or by
// exhaustive search: the two-plan pins, the two-plan window, the short chain's incumbent, the
// block bound and the block sweep.

#include "solve/exact/stack_phases.h"

#include <doctest/doctest.h>

#include <vector>

#include "solve/evaluate.h"
#include "support/brute_force.h"
#include "support/solve_examples.h"

namespace dtplan::solve::detail {
namespace {

// An answer holding `labels` (offer() prices them).
Answer holding(const Problem& p, std::vector<LabelIndex> labels) {
  Answer a;
  offer(a, p, std::move(labels));
  REQUIRE_FALSE(a.labels.empty());
  return a;
}

TEST_CASE("stack phases: two_plan_pins keep each node's distinct labels of the three plans") {
  ShortChainStart start;
  start.over = {0, 1, 2};
  start.under = {0, 0, 1};
  Answer a;
  a.labels = {1, 0, 1};
  const std::vector<Pin> pins = two_plan_pins(start, a);
  REQUIRE(pins.size() == 3);
  CHECK(pins[0] == Pin{0, {0, 1}});
  CHECK(pins[1] == Pin{1, {0, 1}});
  CHECK(pins[2] == Pin{2, {1, 2}});
  CHECK(pinned_labels(pins) == 6);
  CHECK(pinned_labels({}) == 0);
}

TEST_CASE("stack phases: the two-plan window offers the optimum within its pins") {
  // memory_chain(11): (1,1,1) costs 9; the optimum within 11 bytes is 6 at a=0, c=1; with a
  // held at 1 the best is a=1, c=0 at 7.
  Problem p = testing::memory_chain(11);
  ShortChainStart start;
  start.over = {0, 0, 0};
  start.under = {1, 0, 0};
  Answer a = holding(p, {1, 1, 1});
  CHECK(a.cost_us == 9);
  SolverStats stats;
  offer_two_plan_window(a, p, two_plan_pins(start, a), {}, {}, stats);
  CHECK(a.cost_us == 6);
  CHECK(a.labels[0] == 0);
  CHECK(a.labels[2] == 1);
  CHECK(stats.two_plan_windows == 1);
  CHECK(stats.two_plan_gain_us == 3);
  CHECK(p.pins.empty());  // the pins were for the window only

  start.over = {1, 1, 0};
  Answer b = holding(p, {1, 1, 1});
  const std::vector<Pin> pins = two_plan_pins(start, b);
  Problem pinned = p;
  pinned.pins = pins;
  const testing::BruteForceResult best = testing::brute_force(pinned);
  REQUIRE(best.feasible);
  CHECK(best.objective_us == 7);
  offer_two_plan_window(b, p, pins, {}, {}, stats);
  CHECK(b.cost_us == 7);
  CHECK(stats.two_plan_windows == 2);
}

TEST_CASE("stack phases: the short chain's optimum lengthened is the stack's incumbent") {
  // frustrated_stack(8): the optimum is 8, one labelling repeated in every layer.
  const Problem p = testing::frustrated_stack(8);
  Answer a;
  const auto start = offer_short_chain(a, p, {}, {});
  REQUIRE(start.has_value());
  CHECK(start->messages.size() == p.edges.size());
  CHECK(start->rate.empty());  // no memory rows: nothing priced
  REQUIRE_FALSE(a.labels.empty());
  CHECK(a.cost_us == 8);
  CHECK(evaluate(p, a.labels).value().total_us == 8);

  // No repeat group, no short chain: nothing offered.
  Answer none;
  CHECK_FALSE(offer_short_chain(none, testing::two_nodes(), {}, {}).has_value());
  CHECK(none.labels.empty());
}

TEST_CASE("stack phases: the block bound recovers what the LP loses inside each layer") {
  const Problem p = testing::frustrated_stack(6);
  const DualBound d = dual_bound(p, {.max_passes = 100});
  REQUIRE(d.lower_bound_us < 6 - 1);  // the LP pays about nothing for the triangles
  Answer a = holding(p, std::vector<LabelIndex>(p.nodes.size(), 0));  // 3 per layer: 18
  a.bound = d.lower_bound_us;
  SolverStats stats;
  raise_block_bound(a, p, d.messages, {}, {}, stats);
  CHECK(stats.block_bound_solves > 0);
  CHECK(a.bound > d.lower_bound_us + 1);
  CHECK(a.bound <= 6 + rounding_slack(6));
  CHECK(a.cost_us < 18);
  CHECK(a.cost_us >= 6);
  CHECK(evaluate(p, a.labels).value().total_us == a.cost_us);
}

TEST_CASE("stack phases: the block sweep improves a labelling one layer at a time") {
  const Problem p = testing::frustrated_stack(5);
  Answer a = holding(p, std::vector<LabelIndex>(p.nodes.size(), 0));
  CHECK(a.cost_us == 15);  // every triangle at 3
  SolverStats stats;
  offer_block_sweep(
      a, p, {}, {}, [](double) { return false; }, stats);
  CHECK(stats.block_sweep_solves > 0);
  CHECK(a.cost_us == 5);  // each layer's triangle at its least, 1
  CHECK(stats.block_sweep_gain_us == 10);
  CHECK(evaluate(p, a.labels).value().total_us == 5);

  // `enough` at once: the sweep stops before it reaches every layer.
  Answer b = holding(p, std::vector<LabelIndex>(p.nodes.size(), 0));
  SolverStats quick;
  offer_block_sweep(
      b, p, {}, {}, [](double) { return true; }, quick);
  CHECK(b.cost_us > 5);
  CHECK(b.cost_us <= 15);
}

}  // namespace
}  // namespace dtplan::solve::detail
