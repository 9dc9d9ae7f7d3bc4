#include "support/solve_examples.h"

#include <doctest/doctest.h>

#include <utility>

namespace dtplan::testing {

solve::Problem two_nodes() {
  solve::Problem p;
  p.nodes = {{"a", {1, 2}}, {"b", {3, 0}}};
  p.edges = {{0, 1, 0, {0, 5, 5, 0}}};
  return p;
}

solve::Problem memory_chain(std::int64_t high) {
  solve::Problem p;
  p.nodes = {{"a", {0, 4}}, {"b", {2, 2}}, {"c", {0, 3}}};
  p.edges = {{0, 1, 0, {0, 1, 1, 0}}, {1, 2, 0, {0, 1, 1, 0}}};
  p.memory = {{"params", {{0, {10, 1}}, {2, {10, 1}}}, 0, high}};
  return p;
}

solve::Solution plain_optimum(solve::Problem problem, bool with_memory) {
  if (!with_memory) problem.memory.clear();
  solve::SolveOptions off;
  off.bound_fixing = solve::BoundFixing::kOff;
  auto s = solve::make_exact_solver()->solve(problem, off);
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? std::string() : s.error().message));
  REQUIRE(s->optimal);
  return std::move(s).value();
}

solve::Problem frustrated_stack(int blocks) {
  solve::Problem p;
  p.nodes.push_back({"hub", {0, 1}});
  solve::RepeatGroup group;
  const solve::Matrix repel{1, 0, 0, 1};
  const solve::Matrix follow{0, 2, 2, 0};
  const solve::Matrix free_pair{0, 0, 0, 0};
  for (int b = 0; b < blocks; ++b) {
    const auto base = static_cast<solve::NodeIndex>(p.nodes.size());
    for (const char* name : {"a", "b", "c"}) p.nodes.push_back({name, {0, 0}});
    group.blocks.push_back({base, base + 1, base + 2});
    p.edges.push_back({base, base + 1, 0, repel});
    p.edges.push_back({base, base + 2, 0, repel});
    p.edges.push_back({base + 1, base + 2, 1, repel});
    p.edges.push_back({0, base + 1, 1, free_pair});
    if (b > 0) p.edges.push_back({base - 3, base, 0, follow});
  }
  p.repeats.push_back(group);
  return p;
}

}  // namespace dtplan::testing
