#include "strategy/strategy.h"

#include <doctest/doctest.h>

#include <set>

#include "support/strategy_testing.h"

namespace dtplan::strategy {
namespace {

using testing::pl;
using testing::pls;

TEST_CASE("format_strategy: outputs <- inputs, masked partials starred") {
  Strategy s;
  s.outputs = pls({"S(0),S(2)"});
  s.inputs = pls({"S(0),R", "R,S(1)"});
  CHECK(format_strategy(s) == "S(0),S(2) <- S(0),R; R,S(1)");
  s.outputs = pls({"S(0),P(sum)", "R,R"});
  s.masked_partial = 2;
  CHECK(format_strategy(s) == "S(0),P(sum)*; R,R <- S(0),R; R,S(1)");
  s.inputs.clear();
  CHECK(format_strategy(s) == "S(0),P(sum)*; R,R <-");
}

TEST_CASE("rule_name: every rule has a distinct name") {
  std::set<std::string_view> names;
  for (int r = 0; r <= static_cast<int>(Rule::kOutput); ++r) {
    names.insert(rule_name(static_cast<Rule>(r)));
  }
  CHECK(names.size() == static_cast<std::size_t>(Rule::kOutput) + 1);
  CHECK(rule_name(Rule::kEinsum) == "einsum");
  CHECK(rule_name(Rule::kReplicate) == "replicate");
}

TEST_CASE("output_options: a producer's options as its consumers see them") {
  OpStrategy op;
  Strategy a, b;
  a.outputs = pls({"S(0)", "R"});
  b.outputs = pls({"P(sum)", "S(1)"});
  op.strategies = {a, b};
  CHECK(output_options(op, 0) == pls({"S(0)", "P(sum)"}));
  CHECK(output_options(op, 1) == pls({"R", "S(1)"}));
  CHECK_FALSE(op.is_follower());
  CHECK(op.size() == 2);
}

}  // namespace
}  // namespace dtplan::strategy
