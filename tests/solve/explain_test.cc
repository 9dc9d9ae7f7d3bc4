// explain(): the worked example of explain.h, ordering of terms, and the readable summary.

#include "solve/explain.h"

#include <doctest/doctest.h>

#include "support/solve_examples.h"

namespace dtplan::solve {
namespace {

using testing::two_nodes;

TEST_CASE("explain: why {1,1} (cost 2) beats {0,0} (cost 4)") {
  const Problem p = two_nodes();
  const std::vector<LabelIndex> a = {1, 1}, b = {0, 0};
  auto ex = explain(p, a, b);
  REQUIRE(ex.ok());
  CHECK(ex->delta_us == 2);
  REQUIRE(ex->terms.size() == 2);  // the edge costs 0 under both: not listed
  CHECK(ex->terms[0] == TermDifference{TermKind::kNode, 1, 0, 3, 3});
  CHECK(ex->terms[1] == TermDifference{TermKind::kNode, 0, 2, 1, -1});
  const std::string text = format_explanation(p, a, b, *ex, 10);
  CHECK(text ==
        "a beats b by 2.000 us (a 2.000 us, b 4.000 us)\n"
        "  node 'b' label 1 vs 0: 0.000 us -> 3.000 us (+3.000 us)\n"
        "  node 'a' label 1 vs 0: 2.000 us -> 1.000 us (-1.000 us)\n");
  CHECK(format_explanation(p, a, b, *ex, 1).find("... 1 more terms") != std::string::npos);
}

TEST_CASE("explain: sorted by magnitude, forbidden first, then nodes before edges, then index") {
  Problem p;
  p.nodes = {{"x", {0, 1}}, {"y", {0, 1}}, {"z", {0, 4}}};
  p.edges = {{0, 1, 0, {0, 1, 1, 0}}, {1, 2, 0, {0, kForbidden, 4, 0}}};
  p.memory = {{"params", {{2, {8, 2}}}, 0, 100}};
  const std::vector<LabelIndex> a = {0, 0, 0}, b = {1, 0, 1};
  auto ex = explain(p, a, b);
  REQUIRE(ex.ok());
  // b: node x 1 (+1), edge x-y 1 (+1), node z 4 (+4), edge y-z inf (+inf).
  REQUIRE(ex->terms.size() == 4);
  CHECK(ex->terms[0].kind == TermKind::kEdge);
  CHECK(ex->terms[0].index == 1);
  CHECK(ex->terms[1] == TermDifference{TermKind::kNode, 2, 0, 4, 4});
  CHECK(ex->terms[2] == TermDifference{TermKind::kNode, 0, 0, 1, 1});
  CHECK(ex->terms[3] == TermDifference{TermKind::kEdge, 0, 0, 1, 1});
  CHECK(ex->memory == std::vector<MemoryDifference>{{0, 8, 2}});
  const std::string text = format_explanation(p, a, b, *ex, 10);
  CHECK(text.find("a is feasible, b is not") == 0);
  CHECK(text.find("b violates forbidden_pair") != std::string::npos);
  CHECK(text.find("memory row 'params': 8 vs 2 bytes") != std::string::npos);

  CHECK_FALSE(explain(p, a, std::vector<LabelIndex>{0}).ok());
  CHECK(explain(p, std::vector<LabelIndex>{9, 0, 0}, b).error().message.find("solution a:") == 0);
  auto same = explain(p, a, a);
  REQUIRE(same.ok());
  CHECK(same->terms.empty());
  CHECK(format_explanation(p, a, a, *same, 3).find("a and b tie") == 0);
}

}  // namespace
}  // namespace dtplan::solve
