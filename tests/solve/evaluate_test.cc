// evaluate(): the cost breakdown of worked examples, and each violation kind caught.

#include "solve/evaluate.h"

#include <doctest/doctest.h>

#include "support/solve_examples.h"

namespace dtplan::solve {
namespace {

using testing::two_nodes;

std::vector<ViolationKind> kinds(const Evaluation& ev) {
  std::vector<ViolationKind> out;
  for (const Violation& v : ev.violations) out.push_back(v.kind);
  return out;
}

TEST_CASE("evaluate: breakdown of problem.h's example") {
  const Problem p = two_nodes();
  auto ev = evaluate(p, std::vector<LabelIndex>{0, 1});
  REQUIRE(ev.ok());
  CHECK(ev->unary_us == 1 + 0);
  CHECK(ev->pairwise_us == 5);
  CHECK(ev->total_us == 6);
  CHECK(ev->node_us == std::vector<double>{1, 0});
  CHECK(ev->edge_us == std::vector<double>{5});
  CHECK(ev->feasible());
  CHECK(objective_us(p, std::vector<LabelIndex>{0, 1}) == 6);
  CHECK(objective_us(p, std::vector<LabelIndex>{1, 1}) == 2);
  CHECK(trivial_lower_bound_us(p) == 1 + 0 + 0);
}

TEST_CASE("evaluate catches each violation kind") {
  Problem p = two_nodes();
  p.nodes[0].cost_us[1] = kForbidden;         // a=1 forbidden
  p.edges[0].cost_us.edit()[1] = kForbidden;  // (a=0, b=1) forbidden
  p.pins = {{1, {0}}};
  p.followers = {};
  p.memory = {{"params", {{0, {10, 1}}, {1, {10, 1}}}, 5, 12}};

  auto ev = evaluate(p, std::vector<LabelIndex>{0, 0});  // 20 bytes > 12
  REQUIRE(ev.ok());
  CHECK(kinds(*ev) == std::vector<ViolationKind>{ViolationKind::kMemoryHigh});
  CHECK(ev->memory_bytes == std::vector<std::int64_t>{20});
  CHECK(ev->violations[0].message == "memory row 'params': 20 bytes above high 12");

  ev = evaluate(p, std::vector<LabelIndex>{1, 1});  // forbidden label, pin, 2 bytes < 5
  REQUIRE(ev.ok());
  CHECK(kinds(*ev) == std::vector<ViolationKind>{ViolationKind::kForbiddenLabel,
                                                 ViolationKind::kPin, ViolationKind::kMemoryLow});
  CHECK(ev->total_us == kForbidden);

  ev = evaluate(p, std::vector<LabelIndex>{0, 1});
  REQUIRE(ev.ok());
  CHECK(kinds(*ev) ==
        std::vector<ViolationKind>{ViolationKind::kForbiddenPair, ViolationKind::kPin});
  CHECK(ev->violations[0].message == "edge 0: pair 'a'=0 -> 'b'=1 is forbidden");

  Problem f = two_nodes();
  f.followers = {{1, 0, {1, -1}}};  // b = 1 when a = 0; a = 1 not allowed
  ev = evaluate(f, std::vector<LabelIndex>{0, 1});
  REQUIRE(ev.ok());
  CHECK(ev->feasible());
  ev = evaluate(f, std::vector<LabelIndex>{0, 0});
  CHECK(kinds(*ev) == std::vector<ViolationKind>{ViolationKind::kFollower});
  CHECK(ev->violations[0].message == "follower 0: 'b'=0 with leader 'a'=0, expected 1");
  ev = evaluate(f, std::vector<LabelIndex>{1, 1});
  CHECK(ev->violations[0].message.find("leader label not allowed") != std::string::npos);
  for (ViolationKind k :
       {ViolationKind::kForbiddenLabel, ViolationKind::kForbiddenPair, ViolationKind::kPin,
        ViolationKind::kFollower, ViolationKind::kMemoryLow, ViolationKind::kMemoryHigh}) {
    CHECK(violation_name(k) != "unknown");
  }
}

TEST_CASE("evaluate rejects labellings that do not fit the problem") {
  const Problem p = two_nodes();
  auto ev = evaluate(p, std::vector<LabelIndex>{0});
  REQUIRE_FALSE(ev.ok());
  CHECK(ev.error().message == "solution has 1 labels, the problem has 2 nodes");
  ev = evaluate(p, std::vector<LabelIndex>{0, 2});
  REQUIRE_FALSE(ev.ok());
  CHECK(ev.error().message == "solution: label 2 of node 'b' is out of range (2 labels)");
}

}  // namespace
}  // namespace dtplan::solve
